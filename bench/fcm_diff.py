# Differential check of two FCM fakes (bench/fcm-diff.sh): the same send bodies to both —
# a message using every block, plus seeded mutations of it (wrong types, nulls, removed
# fields, lowerCamelCase names, unknown fields, repeated values) each in five raw forms (as
# is, an escaped member name, a repeated member, truncated, extra whitespace) — then the
# answers (status and body, message ids masked) and the history's fcm.send records (target,
# decoded notification, auth, status, reason) compared one by one.
#   fcm_diff.py ENDPOINTS_A ENDPOINTS_B [SEED] [MUTATIONS]     exit 1 on any difference
import json, ssl, sys, random, re, urllib.request, urllib.error, time, copy
import jwt
def setup(path):
    env = json.load(open(path))["environment"]
    sa = json.load(open(env["FCM_SERVICE_ACCOUNT_FILE"]))
    now = int(time.time())
    a = jwt.encode({"iss": sa["client_email"], "scope": "https://www.googleapis.com/auth/firebase.messaging",
                    "aud": sa["token_uri"], "iat": now, "exp": now + 3600}, sa["private_key"], algorithm="RS256")
    ctx = ssl.create_default_context(cafile=env["PUSHDOUBLE_CA_FILE"])
    body = ("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + a).encode()
    tok = json.load(urllib.request.urlopen(sa["token_uri"], body, context=ctx))["access_token"]
    return env["FCM_URL"].rstrip("/") + "/v1/projects/" + env["FCM_PROJECT_ID"] + "/messages:send", tok, ctx
def send(t, body):
    url, tok, ctx = t
    req = urllib.request.Request(url, body, {"authorization": "Bearer " + tok, "content-type": "application/json"})
    try:
        r = urllib.request.urlopen(req, context=ctx); return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
if len(sys.argv) < 3:
    sys.exit(__doc__ or "usage: fcm_diff.py ENDPOINTS_A ENDPOINTS_B [SEED] [MUTATIONS]")
A, B = setup(sys.argv[1]), setup(sys.argv[2])
rnd = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
base = {"message": {"token": "tok-123:APA91b" + "x" * 40, "name": "ignored",
        "notification": {"title": "T", "body": "B", "image": "https://e/i.png"},
        "data": {"k": "v", "n": "1"},
        "android": {"collapse_key": "c", "priority": "high", "ttl": "3600s", "restricted_package_name": "p",
                    "data": {"a": "b"}, "direct_boot_ok": True,
                    "notification": {"title": "t", "body": "b", "color": "#aabbcc", "sound": "s", "tag": "g", "sticky": True,
                                     "body_loc_args": ["x"], "event_time": "2024-01-01T00:00:00Z", "vibrate_timings": ["1s", "0.5s"],
                                     "notification_count": 3, "light_settings": {"color": {"red": 1, "green": 0.5, "blue": 0, "alpha": 1},
                                     "light_on_duration": "1s", "light_off_duration": "2s"}, "notification_priority": "PRIORITY_HIGH",
                                     "visibility": "PUBLIC", "proxy": "ALLOW"},
                    "fcm_options": {"analytics_label": "l"}},
        "apns": {"headers": {"apns-priority": "10"}, "payload": {"aps": {"alert": {"title": "x"}, "badge": 1}}, "fcm_options": {"image": "i"}},
        "webpush": {"headers": {"TTL": "60"}, "data": {"w": "x"}, "notification": {"title": "w"}, "fcm_options": {"link": "https://x"}},
        "fcm_options": {"analytics_label": "top"}}, "validate_only": False}
weird = [None, 1, -1, 2.5, 1e300, True, False, "", "str", "3600s", "-1s", "#zz", "http://x", [], ["a", 1], {}, {"x": 1}, {"x": "y"},
         "PRIORITY_MAX", "normal", "HIGH", "é", "\u00e9\u0301", 2**40, "12", "bad\\escape"]
def paths(o, p=()):
    yield p
    if isinstance(o, dict):
        for k, v in o.items(): yield from paths(v, p + (k,))
    elif isinstance(o, list):
        for i, v in enumerate(o): yield from paths(v, p + (i,))
allp = [p for p in paths(base) if p]
def camel(k): 
    parts = k.split("_"); return parts[0] + "".join(x.title() for x in parts[1:])
def mutate(m):
    for _ in range(rnd.randint(1, 3)):
        p = rnd.choice(allp)
        cur = m
        try:
            for k in p[:-1]: cur = cur[k]
            last = p[-1]
            op = rnd.random()
            if op < 0.45: cur[last] = rnd.choice(weird)
            elif op < 0.6 and isinstance(cur, dict): del cur[last]
            elif op < 0.75 and isinstance(cur, dict) and isinstance(last, str): cur[camel(last)] = cur.pop(last)
            elif op < 0.85 and isinstance(cur, dict): cur["unknown_" + str(rnd.randint(0, 9))] = 1
            else:
                if isinstance(cur, dict): cur[last] = copy.deepcopy(rnd.choice(list(cur.values())))
        except (KeyError, IndexError, TypeError): pass
    return m
def raw_variants(text):
    yield text
    yield text.replace('"token"', '"tok\\u0065n"')
    yield text.replace('{"message":{', '{"message":{"data":{"k":"1"},', 1)   # duplicate member
    yield text[:-1]   # truncated
    yield text.replace(":", " : ").replace(",", " ,\n ")
mismatch = 0; n = 0; statuses = {}
bodies = [json.dumps(base)]
for i in range(int(sys.argv[4]) if len(sys.argv) > 4 else 300):
    bodies.append(json.dumps(mutate(copy.deepcopy(base))))
for text in bodies:
    for v in raw_variants(text):
        b = v.encode()
        ra, rb = send(A, b), send(B, b)
        mask = lambda r: (r[0], re.sub(r'messages/[^"]+', 'messages/ID', r[1]))
        n += 1; statuses[ra[0]] = statuses.get(ra[0], 0) + 1
        if mask(ra) != mask(rb):
            mismatch += 1
            if mismatch <= 5: print("MISMATCH", v[:300], "\n A:", ra, "\n B:", rb)
print(f"{n} requests, {mismatch} mismatches, statuses {statuses}")
def history(path):
    env = json.load(open(path))
    admin = [e["url"] for e in env["endpoints"] if e["name"] == "admin"][0]
    out = []
    after = 0
    while True:
        page = json.load(urllib.request.urlopen(f"{admin}/history?provider=fcm&after={after}&limit=500"))
        items = page if isinstance(page, list) else page.get("exchanges", page.get("items", []))
        if not items: break
        out += items; after = items[-1]["seq"]
        if len(items) < 500: break
    return out
def norm(e):
    keep = {k: e.get(k) for k in ("endpoint", "token", "topic", "notification", "auth", "deviceID")}
    r = e.get("response", {}); keep["status"] = r.get("status"); keep["reason"] = r.get("reason")
    s = json.dumps(keep, sort_keys=True)
    s = re.sub(r'messages/[^"]+', 'messages/ID', s)
    s = re.sub(r'"(issuedAt|expiresAt)": \d+', r'"\1": 0', s)
    s = re.sub(r'"token": "ya29[^"]*"', '"token": "X"', s)
    return s
ha, hb = [norm(e) for e in history(sys.argv[1]) if e.get("endpoint") == "fcm.send"], [norm(e) for e in history(sys.argv[2]) if e.get("endpoint") == "fcm.send"]
bad = sum(1 for x, y in zip(ha, hb) if x != y)
print(f"history: {len(ha)} vs {len(hb)} fcm.send entries, {bad} differ")
if bad:
    for x, y in zip(ha, hb):
        if x != y: print(" A", x[:400], "\n B", y[:400]); break
sys.exit(1 if mismatch or bad or len(ha) != len(hb) else 0)

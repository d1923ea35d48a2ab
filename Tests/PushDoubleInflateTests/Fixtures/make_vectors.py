#!/usr/bin/env python3
"""Regenerates vectors.txt: small compressed vectors made by Python's zlib/gzip.

Lines (tab-separated, base64 payloads):
  input  <name> <b64 of the original>
  vector <name> <raw|zlib|gzip> <input name> <b64 of the compressed stream>
Run: python3 make_vectors.py > vectors.txt   (deterministic: gzip mtime is 0)
"""
import base64, random, struct, sys, zlib

rng = random.Random(1951)
words = "push notification token expo device apns ticket receipt gzip deflate header body json".split()
text = " ".join(rng.choice(words) for _ in range(600)).encode()
inputs = {
    "empty": b"",
    "one": b"A",
    "text": text,
    "random": bytes(rng.randrange(256) for _ in range(700)),
    "runs": b"a" * 3000 + b"b" * 300 + bytes(range(256)) * 3 + b"\x00" * 1000,
    "json": (b'{"to":"ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]","title":"hi","body":"' + b"x" * 900 + b'"}'),
}
b64 = lambda b: base64.b64encode(b).decode()

def deflate(data, level=6, wbits=15, strategy=zlib.Z_DEFAULT_STRATEGY, mem=8):
    c = zlib.compressobj(level, zlib.DEFLATED, wbits, mem, strategy)
    return c.compress(data) + c.flush()

def gzip_header(flags, name=b"", comment=b"", extra=b""):
    h = b"\x1f\x8b\x08" + bytes([flags]) + b"\x00\x00\x00\x00" + b"\x00\x03"
    if flags & 0x04: h += struct.pack("<H", len(extra)) + extra
    if flags & 0x08: h += name + b"\x00"
    if flags & 0x10: h += comment + b"\x00"
    if flags & 0x02: h += struct.pack("<H", zlib.crc32(h) & 0xFFFF)
    return h

def gzip_member(data, flags=0, level=6, **kw):
    body = deflate(data, level, -15)
    return gzip_header(flags, **kw) + body + struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)

out = []
for name, data in inputs.items():
    out.append(f"input\t{name}\t{b64(data)}")
for name, data in inputs.items():
    for level in range(10):
        out.append(f"vector\t{name}-zlib-{level}\tzlib\t{name}\t{b64(deflate(data, level))}")
        out.append(f"vector\t{name}-raw-{level}\traw\t{name}\t{b64(deflate(data, level, -15))}")
    for sname, s in [("huffman", zlib.Z_HUFFMAN_ONLY), ("rle", zlib.Z_RLE), ("fixed", zlib.Z_FIXED), ("filtered", zlib.Z_FILTERED)]:
        for level in (1, 6, 9):
            out.append(f"vector\t{name}-{sname}-{level}\traw\t{name}\t{b64(deflate(data, level, -15, s))}")
    out.append(f"vector\t{name}-wbits9\tzlib\t{name}\t{b64(deflate(data, 9, 9, mem=1))}")
    out.append(f"vector\t{name}-gzip-6\tgzip\t{name}\t{b64(gzip_member(data))}")
    flagged = gzip_member(data, 0x1F, 9, name=b"body.json", comment=b"a comment", extra=b"AP\x04\x00abcd")
    out.append(f"vector\t{name}-gzip-allflags\tgzip\t{name}\t{b64(flagged)}")
# Multiple members (RFC 1952 §2.2): text split in three, one of them empty.
t = inputs["text"]
out.append("vector\ttext-3members\tgzip\ttext\t" + b64(gzip_member(t[:1000]) + gzip_member(b"", 0x08, name=b"x") + gzip_member(t[1000:], level=1)))
print("\n".join(out))

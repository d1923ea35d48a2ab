"""The application server's half: push a text to a browser's subscription with pywebpush.

    from app_server import push
    push(subscription_json, "Hello from the backend", env)

``env`` is the double's sender environment (``PushDoubleServer.environment``, or
``pushdouble env``): ``VAPID_PRIVATE_KEY_FILE`` and ``VAPID_SUBJECT``. The double's TLS
certificate is trusted through ``REQUESTS_CA_BUNDLE`` (in that same environment). Against the
real push services the same call runs with your own VAPID key and the system CA store.
"""

from pywebpush import WebPushException, webpush


def push(subscription, text, env, ttl=60):
    """POSTs ``text`` (aes128gcm, VAPID) to the subscription's endpoint; returns the response."""
    try:
        return webpush(subscription, data=text, ttl=ttl, vapid_private_key=env["VAPID_PRIVATE_KEY_FILE"],
                       vapid_claims={"sub": env["VAPID_SUBJECT"]})
    except WebPushException as e:  # a 4xx/5xx answer: hand it back like a success
        if e.response is None:
            raise
        return e.response

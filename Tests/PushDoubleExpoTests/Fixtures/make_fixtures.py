#!/usr/bin/env python3
"""Regenerates the gzip fixtures ExpoFakeTests reads (deterministic: gzip mtime is 0).

  send-40-messages.json.gz  a send body of 40 messages (over 1024 bytes, so the Node SDK gzips it)
  zeros-8MiB.gz             8 MiB of zero bytes at level 9: a decompression bomb under 20 kB
Run: python3 make_fixtures.py   (writes next to this file)
"""
import gzip, os

here = os.path.dirname(os.path.abspath(__file__))
messages = ['{"to":"ExponentPushToken[g%d]","title":"hello","body":"a gzip body as the Node SDK sends over 1024 characters"}' % i
            for i in range(40)]
body = ("[" + ",".join(messages) + "]").encode()
with open(os.path.join(here, "send-40-messages.json.gz"), "wb") as f:
    f.write(gzip.compress(body, compresslevel=6, mtime=0))
with open(os.path.join(here, "zeros-8MiB.gz"), "wb") as f:
    f.write(gzip.compress(bytes(8 << 20), compresslevel=9, mtime=0))

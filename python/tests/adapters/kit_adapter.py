"""A test adapter on the driver kit: every kind of reply the kit produces."""

import logging
import socket

from pushdouble.driver import Adapter, dead, failed, pending, rejected, run, sent, skipped, aborted

log = logging.getLogger("kit-adapter")


class KitAdapter(Adapter):
    name = "kit-adapter"
    version = "2.5"
    providers = ["apns", "fcm"]
    features = ["collapse"]
    fields = {"apns": ["title", "body", "badge"], "fcm": ["title", "body"]}
    targets = ["fcm.topic"]

    def initialize(self, config):
        self.config = config
        self.registered = []
        log.info("initialize with %s", sorted(config))

    def send(self, notification, devices, targets):
        print("a stray print from the sender's code")  # must not reach the protocol stream
        title = notification.get("title")
        if title == "boom":
            raise RuntimeError("the sender blew up: %s" % len(devices))
        if title == "silent-error":
            raise KeyError
        if title == "resolve":
            host, port = notification["data"]["host"], int(notification["data"]["port"])
            addr = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][4]
            return [sent(devices[0], reason="%s:%d" % addr[:2])]
        if title == "config":
            return [sent(d, reason=",".join(sorted(self.config))) for d in devices]
        out = []
        kinds = {"s": sent, "p": pending, "r": rejected, "f": failed, "k": skipped}
        for d in devices:
            kind = d["token"][:1]
            if kind == "d":
                out.append(dead(d, "Unregistered"))
            elif kind == "a":
                out.append(aborted(d, "batch aborted"))
            elif kind in kinds:
                out.append(kinds[kind](d["id"]) if kind != "s" else sent(d, message_id="mid-" + d["id"]))
        for t in targets:
            out.append(sent(t, message_id="projects/p/messages/" + t["id"]))
        return out

    def settle(self):
        return [sent("d9", reason="settled")]

    def register(self, devices):
        self.registered += [d["id"] for d in devices]
        return {"registered": list(self.registered)}

    def shutdown(self):
        log.info("shutdown after registering %s", self.registered)


if __name__ == "__main__":
    run(KitAdapter())

"""The smallest adapter: attributes left at their defaults except the three needed, and a
two-argument send (no targets)."""

from pushdouble.driver import Adapter, run, sent


class Plain(Adapter):
    name, version, providers = "plain", "1", ["expo"]

    def send(self, notification, devices):
        return [sent(d) for d in devices]


if __name__ == "__main__":
    run(Plain())

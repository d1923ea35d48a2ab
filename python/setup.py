"""Only what pyproject.toml cannot say: a wheel that bundles the pushdouble binary is a
platform wheel (``Root-Is-Purelib: false``, tag ``py3-none-<platform>``), as ruff's and
uv's are. Without a bundled binary the wheel stays pure (``py3-none-any``) and finds the
binary through ``$PUSHDOUBLE_BIN`` or ``PATH``.

``PUSHDOUBLE_WHEEL_PLAT`` sets the platform tag (default ``linux_<machine>``; e.g.
``manylinux_2_36_x86_64`` when the binary's glibc and libssl needs are met by that
policy on your targets)."""

import os
import platform

from setuptools import Distribution, setup

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools < 70.1
    from wheel.bdist_wheel import bdist_wheel

HERE = os.path.dirname(os.path.abspath(__file__))
BUNDLED = os.path.join(HERE, "src", "pushdouble", "bin", "pushdouble")


def _platform_tag():
    tag = os.environ.get("PUSHDOUBLE_WHEEL_PLAT")
    if tag:
        return tag
    machine = platform.machine().lower() or "x86_64"
    return "linux_" + machine


class PlatformWheel(bdist_wheel):
    def finalize_options(self):
        super().finalize_options()
        if os.path.isfile(BUNDLED):
            self.root_is_pure = False

    def get_tag(self):
        if not os.path.isfile(BUNDLED):
            return super().get_tag()
        return ("py3", "none", _platform_tag())


class BinaryDistribution(Distribution):
    """With a bundled binary the package is installed to platlib, files at the wheel's root."""

    def has_ext_modules(self):
        return os.path.isfile(BUNDLED)


setup(distclass=BinaryDistribution, cmdclass={"bdist_wheel": PlatformWheel})

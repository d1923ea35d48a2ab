"""The smallest Django project django-push-notifications runs in: sqlite in a temp dir; the
adapter fills PUSH_NOTIFICATIONS_SETTINGS["APPLICATIONS"] from `initialize` before django.setup()."""
import os, tempfile
SECRET_KEY, USE_TZ, DEBUG = "pushdouble-conform", True, False
INSTALLED_APPS = ["django.contrib.contenttypes", "django.contrib.auth", "push_notifications"]
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": os.path.join(tempfile.mkdtemp(prefix="pd-django-"), "db.sqlite3")}}
PUSH_NOTIFICATIONS_SETTINGS = {"CONFIG": "push_notifications.conf.AppConfig", "APPLICATIONS": {}}

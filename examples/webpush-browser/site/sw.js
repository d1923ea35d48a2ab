// The service worker: each push is decrypted by the browser; its text is shown as a
// notification and posted to the open pages.
"use strict";

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("push", (event) => {
  const text = event.data ? event.data.text() : null;
  event.waitUntil((async () => {
    await self.registration.showNotification("PushDouble", { body: text === null ? "(no payload)" : text });
    const pages = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
    for (const page of pages) page.postMessage({ text, receivedAt: Date.now() });
  })());
});

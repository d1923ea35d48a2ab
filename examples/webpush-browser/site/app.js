// The page: registers the service worker, subscribes with the application server's VAPID
// public key, and lists what the service worker received (window.receivedPushes).
"use strict";

window.receivedPushes = [];

navigator.serviceWorker.addEventListener("message", (event) => {
  window.receivedPushes.push(event.data);
  document.getElementById("log").textContent += event.data.text + "\n";
});

function base64UrlToBytes(text) {
  const padded = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
  return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
}

// A fresh subscription (an earlier one is dropped first): its PushSubscription JSON.
async function subscribe(vapidPublicKey) {
  const registration = await navigator.serviceWorker.register("sw.js");
  await navigator.serviceWorker.ready;
  const old = await registration.pushManager.getSubscription();
  if (old) await old.unsubscribe();
  const subscription = await registration.pushManager.subscribe({
    userVisibleOnly: true,
    applicationServerKey: base64UrlToBytes(vapidPublicKey),
  });
  return subscription.toJSON();
}

async function unsubscribe() {
  const registration = await navigator.serviceWorker.ready;
  const subscription = await registration.pushManager.getSubscription();
  return subscription ? subscription.unsubscribe() : false;
}

// The bodies of the notifications the service worker showed.
async function shownNotifications() {
  const registration = await navigator.serviceWorker.ready;
  return (await registration.getNotifications()).map((n) => n.body);
}

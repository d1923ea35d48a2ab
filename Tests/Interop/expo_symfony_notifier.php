<?php
// Symfony's Expo Notifier bridge (Debian: php-symfony-expo-notifier), unmodified, against the
// PushDouble Expo fake: it posts ONE message object to https://exp.host/--/api/v2/push/send and
// reads the answer as one ticket object (`data.status`, `data.id`, ExpoTransport::doSend). It is
// reached the way a user would reach it: HTTPS_PROXY set to the double's CONNECT proxy and the
// test CA as HttpClient's `cafile`; nothing else is configured.
//
//   https_proxy=http://127.0.0.1:PORT php Tests/Interop/expo_symfony_notifier.php CA ACCESS_TOKEN OK_TOKEN DEAD_TOKEN
//
// Driven by Tests/PushDoubleExpoTests/ExpoSingleTicketClientTests.swift. Prints one JSON line
// {"library","version","ok":{"id"|"error"},"dead":{"id"|"error"}}; exit 2 when the bridge is not installed.
$base = '/usr/share/php/Symfony/Component/Notifier/Bridge/Expo/autoload.php';
if (!is_file($base)) {
    echo json_encode(['library' => 'symfony/expo-notifier', 'error' => 'not installed (apt-get install php-cli php-curl php-symfony-expo-notifier)']), "\n";
    exit(2);
}
require_once $base;

use Symfony\Component\HttpClient\HttpClient;
use Symfony\Component\Notifier\Bridge\Expo\ExpoOptions;
use Symfony\Component\Notifier\Bridge\Expo\ExpoTransport;
use Symfony\Component\Notifier\Message\PushMessage;

[, $ca, $accessToken, $okToken, $deadToken] = $argv;
$transport = new ExpoTransport($accessToken, HttpClient::create(['cafile' => $ca]));

function attempt(ExpoTransport $transport, string $to): array {
    try {
        $sent = $transport->send(new PushMessage('hello', 'world', new ExpoOptions($to)));
        return ['id' => $sent->getMessageId()];
    } catch (\Throwable $e) {
        return ['error' => get_class($e) . ': ' . $e->getMessage()];
    }
}

$version = null;
foreach (['/usr/share/doc/php-symfony-expo-notifier/changelog.Debian.gz'] as $f) {
    if (is_file($f)) { $version = trim(strtok(gzdecode(file_get_contents($f)), "\n")); }
}
echo json_encode([
    'library' => 'symfony/expo-notifier',
    'version' => $version,
    'ok' => attempt($transport, $okToken),
    'dead' => attempt($transport, $deadToken),
]), "\n";

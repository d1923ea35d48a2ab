// A Java client with Apple's host compiled in and no proxy or trust setting in code:
// java.net.http.HttpClient as built by default. Driven by ConnectProxySocketTests with
// -Dhttps.proxyHost/-Dhttps.proxyPort (via JAVA_TOOL_OPTIONS) and -Djavax.net.ssl.trustStore.
// Usage: java ProxyProbe.java HOST JWT DEVICE_TOKEN TOPIC  → one JSON line {"status":…,"version":…,"apns_id":…}
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

public class ProxyProbe {
    public static void main(String[] a) throws Exception {
        HttpClient client = HttpClient.newHttpClient();
        HttpRequest request = HttpRequest.newBuilder(URI.create("https://" + a[0] + "/3/device/" + a[2]))
            .header("authorization", "bearer " + a[1]).header("apns-topic", a[3])
            .POST(HttpRequest.BodyPublishers.ofString("{\"aps\":{\"alert\":\"java through the proxy\"}}")).build();
        HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
        System.out.println("{\"status\":" + response.statusCode() + ",\"version\":\"" + response.version() + "\",\"apns_id\":\""
            + response.headers().firstValue("apns-id").orElse("") + "\"}");
    }
}

// Go's standard library as an unmodified sender reaching PushDouble through its CONNECT proxy.
//
// Standard library only (no modules to download). The HTTP client is http.DefaultClient: its
// transport reads HTTPS_PROXY (http.ProxyFromEnvironment), tunnels with CONNECT and negotiates
// h2 by ALPN inside the tunnel; crypto/x509 reads SSL_CERT_FILE for the test CA. The hosts are
// the real ones, compiled in below, as in a production sender. Run by
// Tests/PushDoubleAPNsTests/ProxyEcosystemTests.swift:
//
//	HTTPS_PROXY=http://127.0.0.1:8729 SSL_CERT_FILE=$PUSHDOUBLE_CA_FILE \
//	  go run proxy_client.go -apns-key AuthKey_PDTESTKEY1.p8 -key-id PDTESTKEY1 -team-id PDTESTTEAM \
//	  -topic com.example.pushdouble -service-account firebase-test-service-account.json
//
// Checks (one JSON line {"library","version","failures","results"}; exit 1 if one failed):
//
//	apns_ok          POST https://api.sandbox.push.apple.com/3/device/<token> with an ES256
//	                 provider token → 200, an apns-id, over HTTP/2 (resp.ProtoMajor == 2)
//	apns_bad_token   a 3-character token → 400 {"reason":"BadDeviceToken"}
//	oauth_token      POST https://oauth2.googleapis.com/token, an RS256 JWT-bearer assertion
//	                 from the service account → 200 with an access_token
//	fcm_send         POST https://fcm.googleapis.com/v1/projects/<p>/messages:send → 200 with
//	                 "name": "projects/<p>/messages/…"
package main

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"strings"
	"time"
)

// The real hosts: what a production sender has compiled in.
const (
	apnsSandbox = "https://api.sandbox.push.apple.com"
	googleToken = "https://oauth2.googleapis.com/token"
	fcmBase     = "https://fcm.googleapis.com"
	fcmScope    = "https://www.googleapis.com/auth/firebase.messaging"
)

var (
	results  = map[string]interface{}{}
	failures = []string{}
)

func check(name string, fn func() (interface{}, error)) {
	v, err := fn()
	if err != nil {
		failures = append(failures, name+": "+err.Error())
		return
	}
	results[name] = v
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func jsonPart(v interface{}) string {
	b, _ := json.Marshal(v)
	return b64(b)
}

func readPKCS8(path string) (interface{}, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode(text)
	if block == nil {
		return nil, fmt.Errorf("%s: no PEM block", path)
	}
	return x509.ParsePKCS8PrivateKey(block.Bytes)
}

// apnsJWT is the provider authentication token (ES256, header kid, claims iss + iat): the
// signature is r‖s, 32 bytes each, as JWS requires (not ASN.1).
func apnsJWT(keyFile, keyID, teamID string) (string, error) {
	k, err := readPKCS8(keyFile)
	if err != nil {
		return "", err
	}
	key, ok := k.(*ecdsa.PrivateKey)
	if !ok {
		return "", errors.New("APNs key is not an EC key")
	}
	input := jsonPart(map[string]string{"alg": "ES256", "kid": keyID}) + "." +
		jsonPart(map[string]interface{}{"iss": teamID, "iat": time.Now().Unix()})
	digest := sha256.Sum256([]byte(input))
	r, s, err := ecdsa.Sign(rand.Reader, key, digest[:])
	if err != nil {
		return "", err
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return input + "." + b64(sig), nil
}

// googleAssertion is the JWT-bearer assertion (RS256, kid = private_key_id, iss = client_email,
// aud = the token URL, scope, iat, exp = iat + 3600).
func googleAssertion(account map[string]string) (string, error) {
	block, _ := pem.Decode([]byte(account["private_key"]))
	if block == nil {
		return "", errors.New("service account: private_key is not PEM")
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return "", err
	}
	key, ok := k.(*rsa.PrivateKey)
	if !ok {
		return "", errors.New("service account key is not RSA")
	}
	now := time.Now().Unix()
	input := jsonPart(map[string]string{"alg": "RS256", "typ": "JWT", "kid": account["private_key_id"]}) + "." +
		jsonPart(map[string]interface{}{"iss": account["client_email"], "scope": fcmScope, "aud": googleToken, "iat": now, "exp": now + 3600})
	digest := sha256.Sum256([]byte(input))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, digest[:])
	if err != nil {
		return "", err
	}
	return input + "." + b64(sig), nil
}

// post sends with http.DefaultClient (proxy from the environment, h2 by ALPN).
func post(target string, headers map[string]string, body []byte) (*http.Response, []byte, error) {
	req, err := http.NewRequest("POST", target, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}

func apns(keyFile, keyID, teamID, topic string) {
	token, err := apnsJWT(keyFile, keyID, teamID)
	if err != nil {
		failures = append(failures, "apns_jwt: "+err.Error())
		return
	}
	headers := map[string]string{"authorization": "bearer " + token, "apns-topic": topic, "apns-push-type": "alert"}
	payload := []byte(`{"aps":{"alert":"Go through the proxy"}}`)
	check("apns_ok", func() (interface{}, error) {
		resp, body, err := post(apnsSandbox+"/3/device/"+strings.Repeat("a1", 32), headers, payload)
		if err != nil {
			return nil, err
		}
		id := resp.Header.Get("apns-id")
		if resp.StatusCode != 200 || id == "" || resp.ProtoMajor != 2 {
			return nil, fmt.Errorf("status %d, apns-id %q, %s: %s", resp.StatusCode, id, resp.Proto, body)
		}
		return map[string]interface{}{"status": resp.StatusCode, "apns_id": id, "proto": resp.Proto}, nil
	})
	check("apns_bad_token", func() (interface{}, error) {
		resp, body, err := post(apnsSandbox+"/3/device/abc", headers, payload)
		if err != nil {
			return nil, err
		}
		var reason struct{ Reason string }
		_ = json.Unmarshal(body, &reason)
		if resp.StatusCode != 400 || reason.Reason != "BadDeviceToken" || resp.ProtoMajor != 2 {
			return nil, fmt.Errorf("status %d, %s: %s", resp.StatusCode, resp.Proto, body)
		}
		return map[string]interface{}{"status": resp.StatusCode, "reason": reason.Reason}, nil
	})
}

func fcm(accountFile string) {
	text, err := os.ReadFile(accountFile)
	var account map[string]string
	if err == nil {
		err = json.Unmarshal(text, &account)
	}
	if err != nil {
		failures = append(failures, "service_account: "+err.Error())
		return
	}
	var accessToken string
	check("oauth_token", func() (interface{}, error) {
		assertion, err := googleAssertion(account)
		if err != nil {
			return nil, err
		}
		form := url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:jwt-bearer"}, "assertion": {assertion}}
		resp, body, err := post(googleToken, map[string]string{"content-type": "application/x-www-form-urlencoded"}, []byte(form.Encode()))
		if err != nil {
			return nil, err
		}
		var t struct {
			AccessToken string `json:"access_token"`
			ExpiresIn   int    `json:"expires_in"`
			TokenType   string `json:"token_type"`
		}
		if resp.StatusCode != 200 || json.Unmarshal(body, &t) != nil || t.AccessToken == "" {
			return nil, fmt.Errorf("status %d: %s", resp.StatusCode, body)
		}
		accessToken = t.AccessToken
		return map[string]interface{}{"status": resp.StatusCode, "token_type": t.TokenType, "expires_in": t.ExpiresIn, "proto": resp.Proto}, nil
	})
	if accessToken == "" {
		return
	}
	check("fcm_send", func() (interface{}, error) {
		project := account["project_id"]
		message := []byte(`{"message":{"token":"go-proxy-token-1:APA91bEXAMPLE","notification":{"title":"Hello","body":"Go through the proxy"}}}`)
		resp, body, err := post(fcmBase+"/v1/projects/"+project+"/messages:send",
			map[string]string{"authorization": "Bearer " + accessToken, "content-type": "application/json"}, message)
		if err != nil {
			return nil, err
		}
		var r struct{ Name string }
		if resp.StatusCode != 200 || json.Unmarshal(body, &r) != nil || !strings.HasPrefix(r.Name, "projects/"+project+"/messages/") {
			return nil, fmt.Errorf("status %d: %s", resp.StatusCode, body)
		}
		return map[string]interface{}{"status": resp.StatusCode, "name": r.Name, "proto": resp.Proto}, nil
	})
}

func main() {
	keyFile := flag.String("apns-key", "", "APNs .p8 key (PKCS#8 P-256)")
	keyID := flag.String("key-id", "", "APNs key id")
	teamID := flag.String("team-id", "", "APNs team id")
	topic := flag.String("topic", "", "apns-topic")
	account := flag.String("service-account", "", "Google service-account JSON")
	flag.Parse()
	results["proxy"] = os.Getenv("HTTPS_PROXY")
	if *keyFile != "" {
		apns(*keyFile, *keyID, *teamID, *topic)
	}
	if *account != "" {
		fcm(*account)
	}
	out, _ := json.Marshal(map[string]interface{}{"library": "go net/http", "version": runtime.Version(), "failures": failures, "results": results})
	fmt.Println(string(out))
	if len(failures) > 0 {
		os.Exit(1)
	}
}

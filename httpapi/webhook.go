package httpapi

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/stockade/stockade"
)

// The payment webhook
//
// A payment system reports the outcomes of payments by posting each, a
// stockade.PaymentOutcome as JSON, to POST /v1/payments/webhook. The
// route needs no API key: the request is authenticated by its
// Stockade-Signature header,
//
//	Stockade-Signature: t=<unix seconds>,v1=<signature>[,v1=<signature>…]
//
// where a signature is the lowercase hex HMAC-SHA256, keyed with a secret
// shared with the server (Options.WebhookSecrets), of the time t, a dot
// and the body exactly as sent: "<t>.<body>". The request passes if any
// v1 signature matches with any secret, compared in constant time, and t
// is within Options.WebhookTolerance of the server's clock. Signing the
// time keeps a captured request from being replayed once it is stale;
// within the tolerance a replay changes nothing either, since the server
// applies each outcome's event id once. Several v1 entries, and several
// secrets on the server, let a secret be rotated without a request being
// refused. Entries other than t and v1 are ignored, for schemes to come.
//
// Here, the scheme: SignWebhook and VerifyWebhook. The route itself, its
// body and Client.Webhook are payments.go's.

// webhookPath is the route of the payment webhook.
const webhookPath = "/v1/payments/webhook"

// headerSignature carries the signature of a webhook request.
const headerSignature = "Stockade-Signature"

// webhookChallenge is the WWW-Authenticate header of a refused webhook
// request: it names the scheme the route takes instead of an API key.
const webhookChallenge = headerSignature

// SignWebhook returns the Stockade-Signature header value of a webhook
// request whose body is body, signed with secret at the time at:
// "t=<unix seconds>,v1=<lowercase hex HMAC-SHA256 of "<t>.<body>">". The
// body must be sent byte for byte as signed. stockade.SignWebhook signs
// with several secrets.
func SignWebhook(secret []byte, body []byte, at time.Time) string {
	return stockade.SignWebhook(body, at, secret)
}

// signature is a Stockade-Signature header value, parsed.
type signature struct {
	t    string // the signed time, as sent
	at   time.Time
	macs [][]byte // the v1 entries, decoded
}

// malformedSignature is the message of a header that does not parse.
const malformedSignature = headerSignature + ": malformed: want t=<unix seconds>,v1=<64 lowercase hex digits of HMAC-SHA256>"

// parseSignature parses the Stockade-Signature header of h. A missing or
// malformed one is EUnauthenticated.
func parseSignature(h http.Header) (signature, error) {
	refuse := func(msg string) (signature, error) {
		return signature{}, stockade.Errorf(stockade.EUnauthenticated, msg)
	}
	vs := h.Values(headerSignature)
	switch {
	case len(vs) == 0:
		return refuse(headerSignature + ": missing; sign the body with a webhook secret: t=<unix seconds>,v1=<HMAC-SHA256 of \"<t>.<body>\">")
	case len(vs) > 1:
		return refuse(headerSignature + ": given more than once")
	}
	var sig signature
	for item := range strings.SplitSeq(vs[0], ",") {
		key, value, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok {
			return refuse(malformedSignature)
		}
		switch key {
		case "t":
			secs, err := strconv.ParseInt(value, 10, 64)
			if sig.t != "" || err != nil || secs < 0 || value != strconv.FormatInt(secs, 10) {
				return refuse(malformedSignature)
			}
			sig.t, sig.at = value, time.Unix(secs, 0)
		case "v1":
			mac, err := hex.DecodeString(value)
			if err != nil || len(mac) != sha256.Size || strings.ToLower(value) != value {
				return refuse(malformedSignature)
			}
			sig.macs = append(sig.macs, mac)
		}
	}
	if sig.t == "" || len(sig.macs) == 0 {
		return refuse(malformedSignature)
	}
	return sig, nil
}

// VerifyWebhook checks the signature of a webhook request whose body is
// body against secrets, at now with tolerance: the payment webhook's
// check, and the one a receiver written in Go makes of the deliveries of
// an outbound webhook endpoint, with the endpoint's secret. It is nil if a v1
// signature matches with a secret and the signed time is within tolerance
// of now; otherwise EUnauthenticated saying which check failed.
func VerifyWebhook(h http.Header, body []byte, secrets [][]byte, now time.Time, tolerance time.Duration) error {
	sig, err := parseSignature(h)
	if err != nil {
		return err
	}
	matched := false
	for _, secret := range secrets {
		want := stockade.WebhookMAC(secret, sig.t, body)
		for _, mac := range sig.macs {
			if hmac.Equal(mac, want) {
				matched = true
			}
		}
	}
	if !matched {
		return stockade.Errorf(stockade.EUnauthenticated,
			headerSignature+": no signature matches the body with a webhook secret of this server")
	}
	if skew := now.Sub(sig.at); skew > tolerance || skew < -tolerance {
		when := "before"
		if skew < 0 {
			when = "after"
		}
		return stockade.Errorf(stockade.EUnauthenticated, fmt.Sprintf(
			"%s: stale: signed at t=%s, %s %s the server's clock, more than the tolerance of %s",
			headerSignature, sig.t, skew.Abs().Truncate(time.Second), when, tolerance))
	}
	return nil
}

package stockade

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Outbound webhooks: endpoints an admin registers, each a URL that
// receives the events it asks for, signed, at least once, in commit order
// per aggregate. A delivery is made from the outbox in a transaction of
// its own that moves the webhooks' checkpoint, so a change and its
// deliveries never disagree: a change that commits is delivered to every
// endpoint that wants it, one that rolls back to none.

// WebhookEndpoint is a URL registered to receive events.
type WebhookEndpoint struct {
	ID  string `json:"id"`
	URL string `json:"url"`
	// Events are the event types it receives, or ["*"] for every type.
	Events      []string `json:"events"`
	Description string   `json:"description,omitempty"`
	// Disabled stops its deliveries, and DisabledReason says why: an
	// admin disabled it, or its receiver answered 410 Gone. The events
	// committed while it is disabled are not delivered to it; those
	// pending when it was disabled wait, and go out once it is enabled
	// again, if their time has not run out.
	Disabled       bool   `json:"disabled"`
	DisabledReason string `json:"disabled_reason,omitempty"`
	// Secret signs its deliveries. While PreviousSecret is set and
	// PreviousExpiresAt has not passed (a rotation's overlap), each
	// delivery carries a signature with each secret.
	Secret            string    `json:"-"`
	PreviousSecret    string    `json:"-"`
	PreviousExpiresAt time.Time `json:"-"`
	CreatedAt         time.Time `json:"created_at"`
	UpdatedAt         time.Time `json:"updated_at"`
	// Version counts its changes: 1 when created.
	Version int64 `json:"version"`
}

// Wants reports whether ep receives ev: it is enabled, asks for ev's
// type, and ev was written after it was registered.
func (ep WebhookEndpoint) Wants(ev DomainEvent) bool {
	if ep.Disabled || ev.At.Before(ep.CreatedAt) {
		return false
	}
	return slices.Contains(ep.Events, WebhookAllEvents) || slices.Contains(ep.Events, ev.Type)
}

// Secrets returns the secrets a delivery at now is signed with: the
// current one, then the previous one while its overlap lasts.
func (ep WebhookEndpoint) Secrets(now time.Time) []string {
	if ep.PreviousSecret != "" && now.Before(ep.PreviousExpiresAt) {
		return []string{ep.Secret, ep.PreviousSecret}
	}
	return []string{ep.Secret}
}

// WebhookAllEvents, alone in WebhookEndpoint.Events, asks for every event
// type, those added later included.
const WebhookAllEvents = "*"

// The limits of webhook endpoints.
const (
	// MaxWebhookURLLength is the longest endpoint URL, in bytes.
	MaxWebhookURLLength = 2048
	// MaxWebhookDescriptionLength is the longest description, in bytes.
	MaxWebhookDescriptionLength = 500
	// MaxWebhookSecretOverlap is the longest a secret that was rotated
	// out may go on signing deliveries.
	MaxWebhookSecretOverlap = 7 * 24 * time.Hour
	// DefaultWebhookSecretOverlap is that overlap when the rotation does
	// not say.
	DefaultWebhookSecretOverlap = 24 * time.Hour
	// DefaultWebhookLimit and MaxWebhookLimit bound a page of endpoints
	// or of deliveries.
	DefaultWebhookLimit = 100
	MaxWebhookLimit     = 1000
)

// NewWebhookEndpointRequest asks WebhookService.CreateWebhookEndpoint for
// an endpoint.
type NewWebhookEndpointRequest struct {
	URL         string
	Events      []string
	Description string
}

// Validate refuses a URL that ValidateWebhookURL refuses, an empty or
// unknown event type (or "*" beside others), a type given twice, or a
// description over its limit.
func (r NewWebhookEndpointRequest) Validate() error {
	if err := ValidateWebhookURL("url", r.URL); err != nil {
		return err
	}
	if err := validateWebhookEvents(r.Events); err != nil {
		return err
	}
	return validateWebhookDescription(r.Description)
}

// WebhookEndpointUpdate asks WebhookService.UpdateWebhookEndpoint to change
// the fields it sets; nil ones are kept.
type WebhookEndpointUpdate struct {
	URL         *string
	Events      []string // nil: kept
	Description *string
	// Disabled disables (true) or enables (false) the endpoint.
	Disabled *bool
}

// Validate refuses what NewWebhookEndpointRequest.Validate would, for the
// fields given.
func (u WebhookEndpointUpdate) Validate() error {
	if u.URL != nil {
		if err := ValidateWebhookURL("url", *u.URL); err != nil {
			return err
		}
	}
	if u.Events != nil {
		if err := validateWebhookEvents(u.Events); err != nil {
			return err
		}
	}
	if u.Description != nil {
		return validateWebhookDescription(*u.Description)
	}
	return nil
}

// ValidateWebhookURL refuses anything but an absolute http or https URL
// with a host, and no user or fragment, of at most MaxWebhookURLLength
// bytes. Whether its address may be called is WebhookAddressAllowed's
// question, asked of every address it resolves to when it is called.
func ValidateWebhookURL(field, raw string) error {
	if len(raw) > MaxWebhookURLLength {
		return invalidf("%s: longer than %d bytes, got %d", field, MaxWebhookURLLength, len(raw))
	}
	u, err := url.Parse(raw)
	switch {
	case raw == "":
		return invalidf("%s: required, must not be empty", field)
	case err != nil:
		return invalidf("%s: not a URL: %v", field, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return invalidf("%s: want an http or https URL, got scheme %q", field, u.Scheme)
	case u.Host == "" || u.Hostname() == "":
		return invalidf("%s: want a host, as in https://shop.example/hooks", field)
	case u.User != nil:
		return invalidf("%s: must not carry a user or password: the signature authenticates deliveries", field)
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return invalidf("%s: must not have a fragment", field)
	}
	return validateChars(field, raw)
}

// WebhookHostAllowed reports whether a URL's host may be called when
// private addresses are not allowed: false for "localhost" and its
// subdomains, and for an address literal that WebhookAddressAllowed
// refuses. A name is checked again, address by address, when it is
// called.
func WebhookHostAllowed(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return false
	}
	if addr, err := netip.ParseAddr(host); err == nil {
		return WebhookAddressAllowed(addr)
	}
	return true
}

// WebhookAddressAllowed reports whether a delivery may connect to addr
// when private addresses are not allowed: not a loopback, private
// (RFC 1918, fc00::/7), link-local, shared (100.64.0.0/10), unspecified,
// "this network" (0.0.0.0/8) or multicast address, and none of those in
// an IPv4-mapped IPv6 address. It keeps a key holder from making the
// service call its own network.
func WebhookAddressAllowed(addr netip.Addr) bool {
	addr = addr.Unmap()
	switch {
	case !addr.IsValid(), addr.IsLoopback(), addr.IsPrivate(), addr.IsUnspecified(),
		addr.IsLinkLocalUnicast(), addr.IsLinkLocalMulticast(), addr.IsInterfaceLocalMulticast(), addr.IsMulticast():
		return false
	case addr.Is4() && (sharedAddressSpace.Contains(addr) || thisNetwork.Contains(addr)):
		return false
	}
	return true
}

var (
	sharedAddressSpace = netip.MustParsePrefix("100.64.0.0/10")
	thisNetwork        = netip.MustParsePrefix("0.0.0.0/8")
)

func validateWebhookEvents(types []string) error {
	if len(types) == 0 {
		return invalidf(`events: required: event types such as "order.committed", or ["*"] for all`)
	}
	seen := make(map[string]bool, len(types))
	for i, t := range types {
		switch {
		case t == WebhookAllEvents && len(types) > 1:
			return invalidf(`events[%d]: "*" stands alone: it is every type`, i)
		case t != WebhookAllEvents && !slices.Contains(EventTypes, t):
			return invalidf("events[%d]: unknown event type %q; want one of %s, or \"*\"", i, t, strings.Join(EventTypes, ", "))
		case seen[t]:
			return invalidf("events[%d]: %q is given twice", i, t)
		}
		seen[t] = true
	}
	return nil
}

func validateWebhookDescription(d string) error {
	if len(d) > MaxWebhookDescriptionLength {
		return invalidf("description: longer than %d bytes, got %d", MaxWebhookDescriptionLength, len(d))
	}
	return validateChars("description", d)
}

// WebhookDeliveryStatus is where a delivery is: pending (to be tried, or
// tried again), succeeded (the receiver answered 2xx), or failed (no more
// tries, until it is redelivered by hand).
type WebhookDeliveryStatus string

const (
	DeliveryPending   WebhookDeliveryStatus = "pending"
	DeliverySucceeded WebhookDeliveryStatus = "succeeded"
	DeliveryFailed    WebhookDeliveryStatus = "failed"
)

// Validate refuses an unknown status.
func (s WebhookDeliveryStatus) Validate(field string) error {
	switch s {
	case DeliveryPending, DeliverySucceeded, DeliveryFailed:
		return nil
	}
	return invalidf("%s: must be pending, succeeded or failed, got %q", field, s)
}

// WebhookDelivery is one event on its way to one endpoint. Its ID is the
// same on every attempt, so that a receiver drops a second delivery by
// it.
type WebhookDelivery struct {
	ID          string                `json:"id"`
	EndpointID  string                `json:"endpoint_id"`
	EventID     string                `json:"event_id"`
	EventType   string                `json:"event_type"`
	Aggregate   string                `json:"aggregate"`
	AggregateID string                `json:"aggregate_id"`
	Status      WebhookDeliveryStatus `json:"status"`
	// Body is what is posted, the event as GET /v1/events shows it,
	// fixed when the delivery is made.
	Body []byte `json:"-"`
	// Attempts counts the attempts begun; an attempt whose outcome was
	// lost (the process died) counts too.
	Attempts int `json:"attempts"`
	// NextAttemptAt is when a pending delivery is tried next; while an
	// attempt runs, when it is given up as lost and tried again.
	NextAttemptAt time.Time `json:"next_attempt_at,omitzero"`
	// RetryUntil is the last time a failed attempt is followed by
	// another.
	RetryUntil time.Time `json:"retry_until"`
	// The last attempt's answer: its time, the receiver's status code (0
	// if none came) and, on failure, what went wrong.
	LastAttemptAt time.Time `json:"last_attempt_at,omitzero"`
	LastCode      int       `json:"last_code,omitempty"`
	LastError     string    `json:"last_error,omitempty"`
	CreatedAt     time.Time `json:"created_at"`
	// Version counts its changes: 1 when made.
	Version int64 `json:"version"`
	// Seq orders the deliveries of one endpoint as their events were
	// committed; the store gives it.
	Seq int64 `json:"-"`
}

// WebhookEndpointQuery asks for a page of the endpoints, in id order.
type WebhookEndpointQuery struct {
	Cursor string
	Limit  int
}

// Validate refuses a query whose Limit is out of range.
func (q WebhookEndpointQuery) Validate() error {
	return validateWebhookLimit(q.Limit)
}

// WebhookEndpointPage is a page of endpoints, and the cursor of the next.
type WebhookEndpointPage struct {
	Endpoints []WebhookEndpoint
	Next      string
}

// WebhookDeliveryQuery asks for a page of an endpoint's deliveries,
// newest first.
type WebhookDeliveryQuery struct {
	// Status keeps those in one status; empty for all.
	Status WebhookDeliveryStatus
	Cursor string
	Limit  int
}

// Validate refuses an unknown status or a Limit out of range.
func (q WebhookDeliveryQuery) Validate() error {
	if q.Status != "" {
		if err := q.Status.Validate("status"); err != nil {
			return err
		}
	}
	return validateWebhookLimit(q.Limit)
}

// WebhookDeliveryPage is a page of deliveries, and the cursor of the next.
type WebhookDeliveryPage struct {
	Deliveries []WebhookDelivery
	Next       string
}

func validateWebhookLimit(limit int) error {
	if limit < 0 || limit > MaxWebhookLimit {
		return invalidf("limit: must be between 1 and %d (0 for %d), got %d", MaxWebhookLimit, DefaultWebhookLimit, limit)
	}
	return nil
}

// WebhookService manages outbound webhooks, a part of Service: an
// admin's. The deliveries themselves are the webhook package's work.
type WebhookService interface {
	// CreateWebhookEndpoint registers an endpoint and returns it with its
	// signing secret, which no other call returns.
	CreateWebhookEndpoint(ctx context.Context, req NewWebhookEndpointRequest) (WebhookEndpoint, string, error)

	// WebhookEndpoints returns a page of the endpoints, in id order.
	WebhookEndpoints(ctx context.Context, q WebhookEndpointQuery) (WebhookEndpointPage, error)

	// WebhookEndpoint returns an endpoint (ENotFound if there is none).
	WebhookEndpoint(ctx context.Context, id string) (WebhookEndpoint, error)

	// UpdateWebhookEndpoint changes what u sets. Enabling an endpoint
	// clears its DisabledReason.
	UpdateWebhookEndpoint(ctx context.Context, id string, u WebhookEndpointUpdate) (WebhookEndpoint, error)

	// DeleteWebhookEndpoint deletes an endpoint and its deliveries, and
	// returns it as it was.
	DeleteWebhookEndpoint(ctx context.Context, id string) (WebhookEndpoint, error)

	// RotateWebhookSecret gives an endpoint a new secret, returned once;
	// the old one goes on signing deliveries beside it for overlap (0 for
	// DefaultWebhookSecretOverlap, at most MaxWebhookSecretOverlap), so
	// that the receiver can move to the new one without refusing any.
	RotateWebhookSecret(ctx context.Context, id string, overlap time.Duration) (WebhookEndpoint, string, error)

	// WebhookDeliveries returns a page of an endpoint's deliveries,
	// newest first.
	WebhookDeliveries(ctx context.Context, endpointID string, q WebhookDeliveryQuery) (WebhookDeliveryPage, error)

	// RedeliverWebhook makes a delivery that failed or succeeded pending
	// again, for one attempt at once: a receiver that missed it, or has
	// mended what refused it, gets it again with the same id. A pending
	// one is EInvalidState.
	RedeliverWebhook(ctx context.Context, endpointID, deliveryID string) (WebhookDelivery, error)
}

// NewWebhookSecret returns a new signing secret: "whsec_" and 256 random
// bits in hex.
func NewWebhookSecret() string {
	var random [32]byte
	rand.Read(random[:]) // never fails
	return webhookSecretPrefix + hex.EncodeToString(random[:])
}

const webhookSecretPrefix = "whsec_"

// The deliveries' machinery, between the engine, which keeps their state,
// and the sender (package webhook), which makes the HTTP calls.

// WebhookFanOut asks for one turn of the webhooks' relay: the next events
// of the outbox, each made a delivery to every endpoint that wants it.
type WebhookFanOut struct {
	// Limit is the most events the turn reads.
	Limit int
	// RetryFor is how long after it is made a delivery is retried:
	// its RetryUntil.
	RetryFor time.Duration
}

// WebhookClaim asks for an endpoint's deliveries that are due: at most
// Limit of them, the first pending one of each aggregate, each claimed
// for Lease (its NextAttemptAt moves that far ahead, so that no other
// sender takes it while the attempt runs; past it, an attempt whose
// outcome never came is taken for lost and made again).
type WebhookClaim struct {
	EndpointID string
	Limit      int
	Lease      time.Duration
}

// WebhookAttempt is how an attempt ended, as the sender judged it.
type WebhookAttempt struct {
	Result WebhookResult
	// Code is the receiver's status code, 0 if no answer came.
	Code int
	// Error says what went wrong; empty when delivered.
	Error string
	// RetryAt is when to try again, for WebhookRetry: a delivery whose
	// RetryUntil comes before it fails instead.
	RetryAt time.Time
}

// WebhookResult is the sender's judgement of an attempt.
type WebhookResult int

const (
	// WebhookDelivered: the receiver answered 2xx.
	WebhookDelivered WebhookResult = iota
	// WebhookRetry: no answer, or one that may change (a 5xx, 408, 429).
	WebhookRetry
	// WebhookRefused: an answer that trying again would not change.
	WebhookRefused
	// WebhookGone: the receiver answered 410 Gone: the delivery fails and
	// its endpoint is disabled.
	WebhookGone
)

// The Stockade-Signature scheme, which the payment webhook verifies on
// what payment systems post (httpapi.VerifyWebhook) and the sender puts on
// every delivery it makes:
//
//	Stockade-Signature: t=<unix seconds>,v1=<signature>[,v1=<signature>…]
//
// where a signature is the lowercase hex HMAC-SHA256, keyed with a secret,
// of the time t, a dot and the body exactly as sent: "<t>.<body>".

// SignWebhook returns the Stockade-Signature value of a body sent at at:
// the time, and a v1 signature with each secret.
func SignWebhook(body []byte, at time.Time, secrets ...[]byte) string {
	t := strconv.FormatInt(at.Unix(), 10)
	var b strings.Builder
	b.WriteString("t=" + t)
	for _, secret := range secrets {
		b.WriteString(",v1=" + hex.EncodeToString(WebhookMAC(secret, t, body)))
	}
	return b.String()
}

// WebhookMAC is the HMAC-SHA256, keyed with secret, of "<t>.<body>": a v1
// signature, before its hex encoding.
func WebhookMAC(secret []byte, t string, body []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(t))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

package stockade

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/hex"
	"strings"
	"time"
)

// Role is what an API key may do. httpapi's route table says which roles
// may call each route.
type Role string

// The roles.
const (
	// RoleAdmin may do everything: locations, stock, any reservation or
	// order (fulfilling orders is the admin's alone), keys.
	RoleAdmin Role = "admin"
	// RoleStorefront reads stock and locations, and creates, reads,
	// confirms and releases its own reservations, and creates, reads and
	// cancels its own orders: those of other keys do not exist for it
	// (ENotFound).
	RoleStorefront Role = "storefront"
	// RoleReader reads everything and changes nothing.
	RoleReader Role = "reader"
)

// Roles are the roles, most powerful first.
var Roles = []Role{RoleAdmin, RoleStorefront, RoleReader}

// Validate refuses a role that is not one of Roles.
func (r Role) Validate() error {
	for _, known := range Roles {
		if r == known {
			return nil
		}
	}
	return invalidf("role: must be admin, storefront or reader, got %q", string(r))
}

// APIKey is a key a client authenticates with. The key's secret is shown
// once, when the key is created, and never stored: only its hash is.
type APIKey struct {
	// ID names the key in lists and in revocation. It is not secret: the
	// secret embeds it.
	ID string `json:"id"`
	// Name says whose key it is; it is unique among keys, and ledger rows
	// of changes made with the key record it.
	Name string `json:"name"`
	Role Role   `json:"role"`
	// RateLimit is the key's requests per second; 0 means the server's
	// default.
	RateLimit float64   `json:"rate_limit,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	// RevokedAt is when the key was revoked; zero while it is live.
	RevokedAt time.Time `json:"revoked_at,omitzero"`
	// Hash is the SHA-256 of the secret, hex encoded.
	Hash string `json:"-"`
}

// Revoked reports whether the key has been revoked.
func (k APIKey) Revoked() bool { return !k.RevokedAt.IsZero() }

// NewKeyRequest asks KeyService.CreateKey for a key.
type NewKeyRequest struct {
	Name string
	Role Role
	// RateLimit is the key's requests per second, or 0 for the server's
	// default.
	RateLimit float64
}

// MaxRateLimit is the largest request rate a key may be given.
const MaxRateLimit = 1e6

// Validate refuses a request with a name that is not an identifier, an
// unknown role, or a rate limit that is negative or above MaxRateLimit.
func (r NewKeyRequest) Validate() error {
	if err := ValidateID("name", r.Name); err != nil {
		return err
	}
	if err := r.Role.Validate(); err != nil {
		return err
	}
	if !(r.RateLimit >= 0 && r.RateLimit <= MaxRateLimit) { // NaN fails both
		return invalidf("rate_limit: must be between 0 and %g requests per second, got %g", float64(MaxRateLimit), r.RateLimit)
	}
	return nil
}

// KeyService manages API keys, a part of Service. The engine implements
// it; `stockade keys` and the admin routes of the HTTP API call it.
type KeyService interface {
	// CreateKey creates a key and returns it with its secret, which is
	// not kept anywhere: the caller shows it once. A name in use is
	// EInvalidState.
	CreateKey(ctx context.Context, req NewKeyRequest) (APIKey, string, error)

	// Keys returns a page of the keys, revoked ones included, in id
	// order.
	Keys(ctx context.Context, q KeyQuery) (KeyPage, error)

	// RevokeKey revokes a key: from then on its secret authenticates
	// nothing. Revoking a revoked key changes nothing and returns it.
	RevokeKey(ctx context.Context, id string) (APIKey, error)

	// Authenticate returns the live key whose secret this is, or
	// EUnauthenticated.
	Authenticate(ctx context.Context, secret string) (APIKey, error)
}

const (
	// DefaultKeyLimit is how many keys a page holds when the query does
	// not say.
	DefaultKeyLimit = 100
	// MaxKeyLimit is the most keys one page holds.
	MaxKeyLimit = 1000
)

// KeyQuery asks KeyService.Keys for a page of the keys.
type KeyQuery struct {
	// Cursor is the Next of the page before; empty for the first page.
	Cursor string
	// Limit is the most keys in the page: 1 to MaxKeyLimit, or 0 for
	// DefaultKeyLimit.
	Limit int
}

// Validate refuses a query whose Limit is out of range.
func (q KeyQuery) Validate() error {
	if q.Limit < 0 || q.Limit > MaxKeyLimit {
		return invalidf("limit: must be between 1 and %d (0 for %d), got %d", MaxKeyLimit, DefaultKeyLimit, q.Limit)
	}
	return nil
}

// KeyPage is a page of the keys, in id order.
type KeyPage struct {
	Keys []APIKey
	// Next is the cursor of the following page; empty on the last page.
	Next string
}

// Key secrets
//
// A secret is "stk_", the key's id without its "key_" prefix, "_", and 32
// random bytes in base32: the prefix lets secret scanners and people
// recognise it, and the id in it finds the key's row without a search.
const (
	secretPrefix = "stk_"
	keyIDPrefix  = "key_"
)

var secretEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// NewKeySecret returns a new secret for the key with the given id, and
// the hash to store.
func NewKeySecret(id string) (secret, hash string) {
	var random [32]byte
	rand.Read(random[:]) // never fails
	secret = secretPrefix + strings.TrimPrefix(id, keyIDPrefix) + "_" + strings.ToLower(secretEncoding.EncodeToString(random[:]))
	return secret, HashKeySecret(secret)
}

// HashKeySecret returns the hash stored for secret: its SHA-256, hex
// encoded. The secret is 256 random bits, so a fast hash is enough: no
// guess is cheaper than the bits.
func HashKeySecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// KeyIDOfSecret returns the id of the key that secret claims to be, or
// false if secret is not shaped like one.
func KeyIDOfSecret(secret string) (string, bool) {
	rest, ok := strings.CutPrefix(secret, secretPrefix)
	if !ok {
		return "", false
	}
	id, random, ok := strings.Cut(rest, "_")
	if !ok || id == "" || len(random) != secretEncoding.EncodedLen(32) || ValidateID("key id", id) != nil {
		return "", false
	}
	return keyIDPrefix + id, true
}

// SecretMatches reports whether secret hashes to k.Hash, in time that
// does not depend on where they differ.
func (k APIKey) SecretMatches(secret string) bool {
	return subtle.ConstantTimeCompare([]byte(HashKeySecret(secret)), []byte(k.Hash)) == 1
}

// Actor is who makes a call: the API key that authenticated it, or
// System. The service reads it from the call's context (WithActor): a
// storefront actor sees only the reservations and orders it created,
// idempotency keys are scoped to the actor's key, and ledger rows record
// its name. A call whose context carries no actor, or one without a role,
// is refused (EUnauthenticated): an entry point that forgot to say who
// calls gets nothing, never everything.
type Actor struct {
	KeyID string
	Name  string
	Role  Role
}

// System is the service's own actor: the sweeper, the consumers of
// commands and payment outcomes from a broker, the payment webhook, the
// command line, a server in open mode (a request without a key) and an
// in-process bench call with it. It may do what an admin key may and sees
// everything. It has no key, so the idempotency keys it sends are the
// service's own, and no name: the ledger and the histories record none
// for its changes.
var System = Actor{Role: RoleAdmin}

type actorKey struct{}

// WithActor returns ctx carrying the actor of the call made with it.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActorFrom returns the actor that ctx carries, if any.
func ActorFrom(ctx context.Context) (Actor, bool) {
	a, ok := ctx.Value(actorKey{}).(Actor)
	return a, ok
}

// Sees reports whether the actor may see a reservation or order that the
// key owner created: a storefront sees only its own.
func (a Actor) Sees(owner string) bool {
	return a.Role != RoleStorefront || a.KeyID == owner
}

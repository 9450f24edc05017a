package httpapi

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
	"golang.org/x/time/rate"

	"github.com/stockade/stockade"
)

// Access
//
// Every /v1 route but the payment webhook (webhook.go, which checks a
// signature instead) needs an API key, sent as "Authorization: Bearer
// <secret>", whose role the route's entry in the route table allows
// (routes.go). A request without a key, or with one that is malformed,
// unknown or revoked, is answered 401 with a WWW-Authenticate challenge; a
// key whose role may not call the route, 403. Then the key's token bucket
// (Options.RateLimit) must hold a token, or the answer is 429 with
// Retry-After. Only then is the body read: a refused request changes
// nothing and costs no more than a lookup of its key.
//
// The call reaches the service as the key's stockade.Actor, which scopes
// what a storefront key sees, its idempotency keys, and the name in the
// ledger.

// access is the set of roles that may call a route; none means the route
// is public.
type access uint8

const (
	allowAdmin access = 1 << iota
	allowStorefront
	allowReader
)

const (
	public   access = 0
	admins          = allowAdmin
	shoppers        = allowAdmin | allowStorefront
	auditors        = allowAdmin | allowReader
	anyRole         = allowAdmin | allowStorefront | allowReader
)

// allows reports whether a key of role may call a route of a.
func (a access) allows(role stockade.Role) bool {
	switch role {
	case stockade.RoleAdmin:
		return a&allowAdmin != 0
	case stockade.RoleStorefront:
		return a&allowStorefront != 0
	case stockade.RoleReader:
		return a&allowReader != 0
	}
	return false
}

// roles lists the roles a allows, for messages.
func (a access) roles() string {
	var names []string
	for _, r := range stockade.Roles {
		if a.allows(r) {
			names = append(names, string(r))
		}
	}
	return strings.Join(names, " or ")
}

// challenge is the WWW-Authenticate header of a 401 (RFC 6750).
const challenge = `Bearer realm="stockade"`

// bearer returns the secret of r's Authorization header, "" if it has
// none. A header that is not one "Bearer <token>" of visible ASCII is
// refused with EUnauthenticated.
func bearer(h http.Header) (string, error) {
	refuse := func(why string) (string, error) {
		return "", stockade.Errorf(stockade.EUnauthenticated, "Authorization: "+why)
	}
	vs := h.Values("Authorization")
	switch {
	case len(vs) == 0:
		return "", nil
	case len(vs) > 1:
		return refuse("given more than once")
	}
	scheme, token, ok := strings.Cut(vs[0], " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return refuse(`want "Bearer <key>"`)
	}
	token = strings.TrimLeft(token, " ")
	if token == "" || len(token) > maxSecretLength {
		return refuse("the key is empty or too long")
	}
	for i := 0; i < len(token); i++ {
		if token[i] <= ' ' || token[i] > '~' {
			return refuse("the key holds a character that no key has")
		}
	}
	return token, nil
}

// maxSecretLength bounds the key a request may send; real ones are far
// shorter.
const maxSecretLength = 256

// guard serves rt: it authenticates the request, checks its role and its
// rate, and calls rt's handler with the key's actor in the context.
func (s *Server) guard(rt route) http.HandlerFunc {
	h := func(w http.ResponseWriter, r *http.Request) { rt.handler(s, w, r) }
	if rt.access == public {
		return h
	}
	return func(w http.ResponseWriter, r *http.Request) {
		actor, b, err := s.authenticate(r)
		if err != nil {
			if stockade.ErrorCode(err) == stockade.EUnauthenticated {
				w.Header().Set("WWW-Authenticate", challenge+`, error="invalid_token"`)
				if r.Header.Get("Authorization") == "" {
					w.Header().Set("WWW-Authenticate", challenge)
				}
			}
			s.writeError(w, r, err)
			return
		}
		if !rt.access.allows(actor.Role) {
			s.writeError(w, r, stockade.Errorf(stockade.EForbidden,
				"a "+string(actor.Role)+" key may not "+r.Method+" "+r.URL.Path+"; this needs a key of role "+rt.access.roles()))
			return
		}
		if wait := s.limits.take(actor.KeyID, b); wait > 0 {
			secs := int(math.Ceil(wait.Seconds()))
			w.Header().Set("Retry-After", strconv.Itoa(secs))
			s.writeError(w, r, stockade.Errorf(stockade.ERateLimited,
				"over this key's request rate; retry in "+strconv.Itoa(secs)+" s"))
			return
		}
		h(w, r.WithContext(stockade.WithActor(r.Context(), actor)))
	}
}

// authenticate returns the actor of r and its token bucket, or why it
// has none. In open mode a request without a key is the service's own
// actor (stockade.System), and has no rate limit: it comes from the
// machine itself.
func (s *Server) authenticate(r *http.Request) (stockade.Actor, bucket, error) {
	secret, err := bearer(r.Header)
	switch {
	case err != nil:
		return stockade.Actor{}, bucket{}, err
	case secret == "" && s.opts.Open:
		return stockade.System, bucket{rate: rate.Inf}, nil
	case secret == "":
		return stockade.Actor{}, bucket{}, stockade.Errorf(stockade.EUnauthenticated, "no API key: send Authorization: Bearer <key>")
	}
	k, err := s.keys.get(r.Context(), s.svc, secret)
	if err != nil {
		return stockade.Actor{}, bucket{}, err
	}
	return stockade.Actor{KeyID: k.ID, Name: k.Name, Role: k.Role}, s.bucketOf(k.RateLimit), nil
}

// bucket is the shape of a key's token bucket.
type bucket struct {
	rate rate.Limit
	size int
}

// bucketOf returns the bucket of a key whose own rate is perKey (0: the
// server's): a key with a rate of its own holds twice its rate; the
// others, Options.RateBurst.
func (s *Server) bucketOf(perKey float64) bucket {
	twice := func(r float64) int { return max(1, int(min(2*r, math.MaxInt32))) }
	switch {
	case perKey > 0:
		return bucket{rate.Limit(perKey), twice(perKey)}
	case s.opts.RateLimit <= 0:
		return bucket{rate: rate.Inf}
	case s.opts.RateBurst > 0:
		return bucket{rate.Limit(s.opts.RateLimit), s.opts.RateBurst}
	}
	return bucket{rate.Limit(s.opts.RateLimit), twice(s.opts.RateLimit)}
}

// keyCache remembers the keys that authenticated lately, by the hash of
// their secret, so that a busy client does not cost a database read per
// request. An entry lives Options.KeyCacheTTL; a revocation through this
// server drops the key's entries at once, and keeps a check that was
// under way meanwhile from caching it again.
type keyCache struct {
	ttl     time.Duration
	mu      sync.Mutex
	m       map[string]cachedKey
	revoked map[string]bool // ids revoked through this server
	// reads makes the requests that miss the cache for one secret at
	// once wait for one read of the store: a burst of a shop's requests
	// when its key's entry runs out asks the store once, not once each.
	reads singleflight.Group
}

type cachedKey struct {
	key   stockade.APIKey
	until time.Time
}

// keyReadTimeout bounds a read of a key that requests missing the cache
// share.
const keyReadTimeout = 10 * time.Second

// get returns the live key of secret, from the cache or from keys.
// Refusals are not cached: a key created a moment ago works at once.
func (c *keyCache) get(ctx context.Context, keys stockade.KeyService, secret string) (stockade.APIKey, error) {
	h := stockade.HashKeySecret(secret)
	now := time.Now()
	c.mu.Lock()
	e, ok := c.m[h]
	c.mu.Unlock()
	if ok && now.Before(e.until) {
		return e.key, nil
	}
	// The read runs for all who wait on it: not cut short when the
	// request that started it ends, but bounded on its own.
	read := c.reads.DoChan(h, func() (any, error) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), keyReadTimeout)
		defer cancel()
		return keys.Authenticate(ctx, secret)
	})
	var res singleflight.Result
	select {
	case res = <-read:
	case <-ctx.Done():
		return stockade.APIKey{}, ctx.Err()
	}
	if res.Err != nil {
		return stockade.APIKey{}, res.Err
	}
	k := res.Val.(stockade.APIKey)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.revoked[k.ID] { // revoked while Authenticate ran
		return stockade.APIKey{}, stockade.Errorf(stockade.EUnauthenticated, "the API key is not valid: it is malformed, unknown or revoked")
	}
	for h, e := range c.m { // keys are few; drop the stale ones as we go
		if !now.Before(e.until) {
			delete(c.m, h)
		}
	}
	c.m[h] = cachedKey{key: k, until: now.Add(c.ttl)}
	return k, nil
}

// forget drops the cached entries of the key id, revoked.
func (c *keyCache) forget(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.revoked[id] = true
	for h, e := range c.m {
		if e.key.ID == id {
			delete(c.m, h)
		}
	}
}

// rateLimits holds a token bucket per key id.
type rateLimits struct {
	mu sync.Mutex
	m  map[string]*rate.Limiter
}

// take takes a token from the bucket b of key id, and returns 0, or how
// long until the bucket holds one if it is empty (and takes none).
func (l *rateLimits) take(id string, b bucket) time.Duration {
	if b.rate == rate.Inf {
		return 0
	}
	l.mu.Lock()
	lim, ok := l.m[id]
	if !ok {
		lim = rate.NewLimiter(b.rate, b.size)
		l.m[id] = lim
	} else if lim.Limit() != b.rate || lim.Burst() != b.size { // the key's rate changed
		lim.SetLimit(b.rate)
		lim.SetBurst(b.size)
	}
	l.mu.Unlock()
	now := time.Now()
	res := lim.ReserveN(now, 1)
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		return d
	}
	return 0
}

package engine

import (
	"cmp"
	"context"
	"time"

	"github.com/stockade/stockade"
)

var _ stockade.KeyService = (*Engine)(nil)

// CreateKey implements stockade.KeyService.
func (e *Engine) CreateKey(ctx context.Context, req stockade.NewKeyRequest) (stockade.APIKey, string, error) {
	var secret string
	k, err := run(e, ctx, "create key", nil, func(ctx context.Context, c *call) (stockade.APIKey, error) {
		if err := req.Validate(); err != nil {
			return stockade.APIKey{}, err
		}
		var k stockade.APIKey
		err := c.update(ctx, func(tx stockade.Tx) error {
			if _, ok, err := tx.KeyGetByName(ctx, req.Name); err != nil || ok {
				if ok {
					return refuse(stockade.EInvalidState, "an API key named %q exists: revoked keys keep their names, so pick another", req.Name)
				}
				return err
			}
			// A new id and secret per attempt: an attempt retried after a
			// conflict may have lost its id to another transaction.
			k = stockade.APIKey{ID: newID("key"), Name: req.Name, Role: req.Role, RateLimit: req.RateLimit,
				CreatedAt: e.now().UTC().Truncate(time.Microsecond)}
			secret, k.Hash = stockade.NewKeySecret(k.ID)
			return tx.KeyInsert(ctx, k)
		})
		return k, err
	})
	if err != nil {
		return stockade.APIKey{}, "", err
	}
	return k, secret, nil
}

// Keys implements stockade.KeyService.
func (e *Engine) Keys(ctx context.Context, q stockade.KeyQuery) (stockade.KeyPage, error) {
	return run(e, ctx, "keys", nil, func(ctx context.Context, c *call) (stockade.KeyPage, error) {
		if err := q.Validate(); err != nil {
			return stockade.KeyPage{}, err
		}
		after, err := parseIDCursor(q.Cursor, keyCursorTag)
		if err != nil {
			return stockade.KeyPage{}, err
		}
		limit := cmp.Or(q.Limit, stockade.DefaultKeyLimit)
		var ks []stockade.APIKey
		err = c.view(ctx, func(tx stockade.Tx) (err error) {
			ks, err = tx.KeyList(ctx, after, limit+1)
			return err
		})
		if err != nil {
			return stockade.KeyPage{}, err
		}
		page := stockade.KeyPage{Keys: ks}
		if len(ks) > limit {
			page.Keys, page.Next = ks[:limit], idCursor(keyCursorTag, ks[limit-1].ID)
		}
		return page, nil
	})
}

// A key cursor is the id of the last key of a page: the byte 'k' and the
// id, in unpadded base64url.
const keyCursorTag = 'k'

// RevokeKey implements stockade.KeyService.
func (e *Engine) RevokeKey(ctx context.Context, id string) (stockade.APIKey, error) {
	return run(e, ctx, "revoke key", nil, func(ctx context.Context, c *call) (stockade.APIKey, error) {
		if err := checkID("key id", id); err != nil {
			return stockade.APIKey{}, err
		}
		var k stockade.APIKey
		err := c.update(ctx, func(tx stockade.Tx) (err error) {
			if k, err = tx.KeyGet(ctx, id); err != nil || k.Revoked() {
				return err
			}
			k.RevokedAt = e.now().UTC().Truncate(time.Microsecond)
			if ok, err := tx.KeyRevoke(ctx, id, k.RevokedAt); err != nil || !ok {
				return statusErr(err, "api key", id)
			}
			return nil
		})
		return k, err
	})
}

// Authenticate implements stockade.KeyService. Every way a secret can
// fail (malformed, unknown, wrong, revoked) gets the same answer, so that
// the answer tells a guesser nothing.
func (e *Engine) Authenticate(ctx context.Context, secret string) (stockade.APIKey, error) {
	// The caller has no actor yet: finding one is the service's own work.
	ctx = stockade.WithActor(ctx, stockade.System)
	return run(e, ctx, "authenticate", nil, func(ctx context.Context, c *call) (stockade.APIKey, error) {
		refused := refuse(stockade.EUnauthenticated, "the API key is not valid: it is malformed, unknown or revoked")
		id, ok := stockade.KeyIDOfSecret(secret)
		if !ok {
			return stockade.APIKey{}, refused
		}
		var k stockade.APIKey
		err := c.view(ctx, func(tx stockade.Tx) (err error) {
			k, err = tx.KeyGet(ctx, id)
			return err
		})
		switch {
		case stockade.ErrorCode(err) == stockade.ENotFound:
			return stockade.APIKey{}, refused
		case err != nil:
			return stockade.APIKey{}, err
		case k.Revoked() || !k.SecretMatches(secret):
			return stockade.APIKey{}, refused
		}
		return k, nil
	})
}

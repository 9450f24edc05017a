package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/stockade/stockade"
)

// RelayLock always has the turn: one transaction writes at a time, and a
// relay runs in a write transaction.
func (t *tx) RelayLock(ctx context.Context, name string) (stockade.EventPosition, bool, error) {
	var pos stockade.EventPosition
	err := t.tx.QueryRowContext(ctx, relayPositionSQL, name).Scan(&pos.Seq)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return stockade.EventPosition{}, true, nil
	case err != nil:
		return pos, false, wrapf(err, "relay position %s", name)
	}
	return pos, true, nil
}

func (t *tx) RelaySetPosition(ctx context.Context, name string, pos stockade.EventPosition) error {
	if _, err := t.tx.ExecContext(ctx, setRelayPositionSQL, name, pos.Seq, micros(time.Now())); err != nil {
		return wrapf(err, "set relay position %s", name)
	}
	return nil
}

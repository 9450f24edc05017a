package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/stockade/stockade"
)

// RelayLock takes the relay's turn with an advisory lock, which takes no
// transaction id (see migrations/0005_relay.sql), then reads its
// checkpoint in a statement of its own, whose snapshot follows the lock:
// the checkpoint that the relay's last holder committed.
func (t *tx) RelayLock(ctx context.Context, name string) (stockade.EventPosition, bool, error) {
	var held bool
	if err := t.tx.QueryRow(ctx, lockRelaySQL, name).Scan(&held); err != nil {
		return stockade.EventPosition{}, false, t.fail(ctx, "lock relay "+name, err)
	}
	if !held {
		return stockade.EventPosition{}, false, nil
	}
	var pos stockade.EventPosition
	err := t.tx.QueryRow(ctx, relayPositionSQL, name).Scan(&pos.Tx, &pos.Seq)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return stockade.EventPosition{}, true, nil
	case err != nil:
		return stockade.EventPosition{}, false, t.fail(ctx, "relay position "+name, err)
	}
	return pos, true, nil
}

func (t *tx) RelaySetPosition(ctx context.Context, name string, pos stockade.EventPosition) error {
	if _, err := t.tx.Exec(ctx, setRelayPositionSQL, name, pos.Tx, pos.Seq); err != nil {
		return t.fail(ctx, "set relay position "+name, err)
	}
	return nil
}

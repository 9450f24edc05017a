package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/postgres"
)

// Examples that need a server have no Output line: they are compiled, not
// run. The tests run the same calls against a real PostgreSQL.

func ExampleOpen() {
	ctx := context.Background()
	s, err := postgres.Open(ctx, os.Getenv("STOCKADE_POSTGRES_URL"), &postgres.Options{MaxConns: 32})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	if err := s.Migrate(ctx); err != nil { // safe from every instance at once
		fmt.Println(err)
		return
	}
	fmt.Println(s.Features())
}

func ExampleStore_Update() {
	ctx := context.Background()
	s, err := postgres.Open(ctx, os.Getenv("STOCKADE_POSTGRES_URL"), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()

	k := stockade.Key{SKU: "tee-m", Location: "ams"}
	err = s.Update(ctx, func(tx stockade.Tx) error {
		// Check and write in one statement: refused, not negative.
		l, ok, err := tx.LevelUpdate(ctx, k, stockade.Delta{Reserved: 2}, stockade.Guard{})
		if err != nil {
			return err
		}
		if !ok {
			return stockade.Errorf(stockade.EInsufficientStock, "fewer than 2 of "+k.String())
		}
		fmt.Println("available now:", l.Available())
		return tx.MovementAppend(ctx, stockade.Movement{SKU: k.SKU, Location: k.Location,
			Kind: stockade.MoveReserve, Delta: stockade.Delta{Reserved: 2}})
	})
	switch {
	case errors.Is(err, stockade.ErrConflict):
		fmt.Println("a concurrent transaction got in the way: retry")
	case err != nil:
		fmt.Println(stockade.ErrorCode(err), stockade.ErrorMessage(err))
	}
}

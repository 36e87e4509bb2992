package engine_test

import (
	"context"
	"crypto/ed25519"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/nova-dev/nova/engine/team"
)

func initHubMembers(ctx context.Context, url string, admin ed25519.PrivateKey) error {
	c := team.Config{URL: url}
	nc, err := team.Connect(ctx, c, "test hub")
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	_, err = team.InitMembers(ctx, js, c, admin)
	return err
}

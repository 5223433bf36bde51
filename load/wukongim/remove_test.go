package wukongim_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/plan"
	"github.com/imbench/imbench/load/wukongim"
	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/reftest"
	wire "github.com/imbench/imbench/wire/wukongim"
)

// A run's teardown leaves none of its group and live channels; its users
// stay (WuKongIM has no API that deletes them) and the removal says so.
func TestRemoveDeletesChannelsKeepsUsers(t *testing.T) {
	tg := reftest.StartWuKongIM(t, core.Faults{}, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := plan.Workload{Name: "wukongim/remove", Prefix: "rm_", BodySize: 64, Classes: []json.RawMessage{
		json.RawMessage(`{"kind":"groups","groups":3,"members":4,"allOnline":true,"rate":1,"messages":1}`),
		json.RawMessage(`{"kind":"chatroom","members":3,"rate":1,"messages":1}`),
	}}.Build()
	if err != nil {
		t.Fatal(err)
	}
	proto, d := driverFor(t, tg, tg.Secret, p)
	if _, err := d.Setup(ctx, func(string) {}); err != nil {
		t.Fatal(err)
	}
	// A chatroom's live channel exists once someone joins it.
	api := &wukongim.API{Base: tg.APIURL, Token: tg.Secret, HTTP: http.DefaultClient}
	if err := api.AddSubscribers(ctx, p.RoomID(0), wire.ChannelLive, []string{p.UserID(0)}); err != nil {
		t.Fatal(err)
	}
	if users, groups, rooms := tg.Core.Census(p.Prefix); users != p.Users || groups != 3 || rooms != 1 {
		t.Fatalf("after setup: %d users %d groups %d rooms", users, groups, rooms)
	}

	rm, err := proto.(engine.Remover).Remove(ctx, engine.CreatedBy(p))
	if err != nil {
		t.Fatal(err)
	}
	if rm.Groups != 3 || rm.Rooms != 1 || rm.Users != 0 || len(rm.Kept) != 2 || !strings.Contains(rm.Kept[0], "deletes a user") {
		t.Fatalf("removal %+v", rm)
	}
	if users, groups, rooms := tg.Core.Census(p.Prefix); users != p.Users || groups+rooms != 0 {
		t.Fatalf("after the removal: %d users %d groups %d rooms", users, groups, rooms)
	}
	if _, err := proto.(engine.Remover).Remove(ctx, engine.CreatedBy(p)); err != nil {
		t.Fatalf("a second removal: %v", err)
	}
	if err := api.DeleteChannel(ctx, p.UserID(0), wire.ChannelPerson); err == nil || !strings.Contains(err.Error(), "HTTP 400") {
		t.Fatalf("deleting a person channel: %v", err)
	}
}

package openim_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/openim"
	"github.com/imbench/imbench/load/plan"
	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/reftest"
	wire "github.com/imbench/imbench/wire/openim"
)

// A run's teardown dismisses its groups; its users stay (OpenIM v3.8 has
// no route that deletes one) and the removal says so. A group's owner may
// dismiss it, another member may not.
func TestRemoveDismissesGroupsKeepsUsers(t *testing.T) {
	tg := reftest.Start(t, core.Faults{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := plan.Workload{Name: "openim/remove", Prefix: "rm_", BodySize: 64, Classes: []json.RawMessage{
		json.RawMessage(`{"kind":"groups","groups":3,"members":4,"allOnline":true,"rate":1,"messages":1}`),
	}}.Build()
	if err != nil {
		t.Fatal(err)
	}
	tgt := engine.Target{Name: "reference", System: "openim",
		Endpoints: map[string]string{"api": tg.APIURL, "ws": tg.WSURL}, Options: map[string]any{"secret": tg.Secret}}
	_, proto, err := tgt.Open()
	if err != nil {
		t.Fatal(err)
	}
	d, err := proto.Driver(p, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Setup(ctx, func(string) {}); err != nil {
		t.Fatal(err)
	}
	if users, groups, _ := tg.Core.Census(p.Prefix); users != p.Users || groups != 3 {
		t.Fatalf("after setup: %d users %d groups", users, groups)
	}

	api := &openim.API{Base: tg.APIURL, Secret: tg.Secret, AdminID: "imAdmin"}
	admin, err := api.AdminToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	owner, _ := tg.Core.GroupOwner(p.GroupID(0))
	var member string
	members, _ := tg.Core.Members(p.GroupID(0))
	for _, m := range members {
		if m != owner {
			member = m
		}
	}
	memberToken, err := api.UserToken(ctx, admin, member, wire.PlatformAndroid)
	if err != nil {
		t.Fatal(err)
	}
	if err := api.DismissGroup(ctx, memberToken, p.GroupID(0)); openim.Code(err) != wire.CodeNoPermission {
		t.Fatalf("a member dismissing the group: %v", err)
	}
	ownerToken, err := api.UserToken(ctx, admin, owner, wire.PlatformAndroid)
	if err != nil {
		t.Fatal(err)
	}
	if err := api.DismissGroup(ctx, ownerToken, p.GroupID(0)); err != nil {
		t.Fatalf("its owner dismissing the group: %v", err)
	}

	rm, err := proto.(engine.Remover).Remove(ctx, engine.CreatedBy(p))
	if err != nil {
		t.Fatal(err)
	}
	if rm.Groups != 3 || rm.Users != 0 || len(rm.Kept) != 2 || !strings.Contains(rm.Kept[0], "no route that deletes a user") {
		t.Fatalf("removal %+v", rm)
	}
	if users, groups, _ := tg.Core.Census(p.Prefix); users != p.Users || groups != 0 {
		t.Fatalf("after the removal: %d users %d groups", users, groups)
	}
}

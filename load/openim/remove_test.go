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
	refopenim "github.com/imbench/imbench/targets/reference/openim"
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
	p, proto, d := setupOn(t, tg, "rm_", `{"kind":"groups","groups":3,"members":4,"allOnline":true,"rate":1,"messages":1}`)
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
	// The group its owner dismissed is not the removal's: the server no
	// longer has it (1004), as for a group a failed setup never made.
	if rm.Groups != 2 || rm.GroupsAbsent != 1 || rm.Users != 0 || len(rm.Kept) != 2 || !strings.Contains(rm.Kept[0], "no route that deletes a user") {
		t.Fatalf("removal %+v", rm)
	}
	if users, groups, _ := tg.Core.Census(p.Prefix); users != p.Users || groups != 0 {
		t.Fatalf("after the removal: %d users %d groups", users, groups)
	}
}

// open-im-server v3.8.3 answers an invitation with 1001 "maxSeq is invalid"
// once it has added the first 50 invited: setup invites 50 at a time,
// makes sure every member is in, and says what the server did.
func TestSetupThroughTheInviteSeqRefusal(t *testing.T) {
	tg := reftest.StartConfigured(t, core.Faults{}, func(f *refopenim.FrontEnd) { f.InviteSeqRefusal = true })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, _, d := setupOn(t, tg, "inv_", `{"kind":"groups","groups":1,"members":1130,"online":2,"rate":1,"messages":1}`)
	rep, err := d.Setup(ctx, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	members, _ := tg.Core.Members(p.GroupID(0))
	if len(members) != 1130 {
		t.Fatalf("the group has %d members, want 1130", len(members))
	}
	// 999 members besides the owner at creation, 130 invited 50 at a time.
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], `answered 3 of its invitations to groups with errCode 1001 "maxSeq is invalid"`) {
		t.Fatalf("warnings %q", rep.Warnings)
	}
}

// setupOn builds a one-class plan with ids under prefix and opens the
// OpenIM protocol on tg for it.
func setupOn(t *testing.T, tg *reftest.Target, prefix, class string) (*plan.Plan, engine.Protocol, engine.Driver) {
	t.Helper()
	p, err := plan.Workload{Name: "openim/" + prefix, Prefix: prefix, BodySize: 64, Classes: []json.RawMessage{json.RawMessage(class)}}.Build()
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
	return p, proto, d
}

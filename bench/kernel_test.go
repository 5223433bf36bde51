package bench

import "testing"

func TestKernelCountersParse(t *testing.T) {
	softnet := "1be992cb 00c118f3 000000cd 00000000\n1ba1716a 00000010 000000be 00000000\n"
	if n, err := backlogDrops(softnet); err != nil || n != 0xc118f3+0x10 {
		t.Fatalf("backlog drops %d, %v", n, err)
	}
	netstat := "TcpExt: SyncookiesSent ListenOverflows ListenDrops\nTcpExt: 0 121158 121160\n" +
		"IpExt: InNoRoutes ListenOverflows\nIpExt: 0 7\n"
	if n, err := procNetField(netstat, "TcpExt:", "ListenOverflows"); err != nil || n != 121158 {
		t.Fatalf("listen overflows %d, %v", n, err)
	}
	snmp := "Ip: Forwarding\nIp: 1\nTcp: RtoAlgorithm RetransSegs InErrs\nTcp: 1 1174382 3619\n"
	if n, err := procNetField(snmp, "Tcp:", "RetransSegs"); err != nil || n != 1174382 {
		t.Fatalf("retransmits %d, %v", n, err)
	}
	if _, err := procNetField(snmp, "Tcp:", "Nope"); err == nil {
		t.Fatal("a missing counter read as 0")
	}
	if _, err := backlogDrops("zz"); err == nil {
		t.Fatal("a bad softnet_stat row read")
	}
	after := kernelCounters{10, 5, 100}
	if d := after.since(kernelCounters{4, 5, 1}); d != (kernelCounters{6, 0, 99}) {
		t.Fatalf("since: %+v", d)
	}
	if _, err := readKernelCounters(); err != nil {
		t.Fatalf("this machine's counters: %v", err)
	}
}

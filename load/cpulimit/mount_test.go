package cpulimit

import "testing"

// In a container on cgroup v1 the cpu hierarchy is mounted at its own
// cgroup, which /proc/self/cgroup names by its whole path: the folder is
// the mount point, not the mount point joined with that path.
func TestCgroupFolderUnderAMountOfItsOwn(t *testing.T) {
	cases := []struct {
		m          mount
		path, want string
	}{
		{mount{"/sys/fs/cgroup/cpu", "/"}, "/kubepods/pod1/c1", "/sys/fs/cgroup/cpu/kubepods/pod1/c1"},
		{mount{"/sys/fs/cgroup/cpu", "/imbench-cluster/kubepods/pod1/c1"}, "/imbench-cluster/kubepods/pod1/c1", "/sys/fs/cgroup/cpu"},
		{mount{"/sys/fs/cgroup/cpu", "/kubepods/pod1"}, "/kubepods/pod1/c1", "/sys/fs/cgroup/cpu/c1"},
		{mount{"/sys/fs/cgroup/cpu", "/kubepods/pod1"}, "/kubepods/pod10", "/sys/fs/cgroup/cpu"},
	}
	for _, c := range cases {
		if got := c.m.dir(c.path); got != c.want {
			t.Errorf("%+v dir(%s) = %s, want %s", c.m, c.path, got, c.want)
		}
	}
}

package testcluster

import (
	"fmt"
	"os"
	"strings"
)

// leakHelperEnv makes the test binary a process that starts a control plane,
// reports it and waits to be killed (see the leak test).
const leakHelperEnv = "DRIFTDECK_TESTCLUSTER_LEAK_HELPER"

func runLeakHelper() {
	c, err := Launch(Options{NoCRDs: true})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	var pids []string
	for _, pid := range controlPlaneProcesses() {
		pids = append(pids, fmt.Sprint(pid))
	}
	fmt.Printf("ready %s %s\n", c.dir, strings.Join(pids, " "))
	select {}
}

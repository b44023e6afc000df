// Command pulumi-resource-slow is a resource provider for tests whose
// creates take as long as $SLOW_CREATE says (a Go duration), so that an
// update can be killed while a create is in flight. It exits on its own
// when the engine that started it dies.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"
)

type slow struct {
	pulumirpc.UnimplementedResourceProviderServer
	ids atomic.Int64
}

func (p *slow) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: "0.0.1"}, nil
}

func (p *slow) CheckConfig(_ context.Context, req *pulumirpc.CheckRequest) (*pulumirpc.CheckResponse, error) {
	return &pulumirpc.CheckResponse{Inputs: req.GetNews()}, nil
}

func (p *slow) DiffConfig(context.Context, *pulumirpc.DiffRequest) (*pulumirpc.DiffResponse, error) {
	return &pulumirpc.DiffResponse{}, nil
}

func (p *slow) Configure(context.Context, *pulumirpc.ConfigureRequest) (*pulumirpc.ConfigureResponse, error) {
	return &pulumirpc.ConfigureResponse{AcceptSecrets: true}, nil
}

func (p *slow) Check(_ context.Context, req *pulumirpc.CheckRequest) (*pulumirpc.CheckResponse, error) {
	return &pulumirpc.CheckResponse{Inputs: req.GetNews()}, nil
}

func (p *slow) Diff(_ context.Context, req *pulumirpc.DiffRequest) (*pulumirpc.DiffResponse, error) {
	if req.GetOlds().String() == req.GetNews().String() {
		return &pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_NONE}, nil
	}
	return &pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_SOME}, nil
}

func (p *slow) Create(ctx context.Context, req *pulumirpc.CreateRequest) (*pulumirpc.CreateResponse, error) {
	if !req.GetPreview() {
		wait(ctx)
	}
	return &pulumirpc.CreateResponse{Id: fmt.Sprintf("thing-%d", p.ids.Add(1)), Properties: req.GetProperties()}, nil
}

func (p *slow) Read(_ context.Context, req *pulumirpc.ReadRequest) (*pulumirpc.ReadResponse, error) {
	return &pulumirpc.ReadResponse{Id: req.GetId(), Properties: req.GetProperties(), Inputs: req.GetInputs()}, nil
}

func (p *slow) Update(_ context.Context, req *pulumirpc.UpdateRequest) (*pulumirpc.UpdateResponse, error) {
	return &pulumirpc.UpdateResponse{Properties: req.GetNews()}, nil
}

func (p *slow) Delete(context.Context, *pulumirpc.DeleteRequest) (*emptypb.Empty, error) {
	return &emptypb.Empty{}, nil
}

// wait sleeps for $SLOW_CREATE, or until the create is cancelled.
func wait(ctx context.Context) {
	d, _ := time.ParseDuration(os.Getenv("SLOW_CREATE"))
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// exitWithParent exits the process once the engine that started it is
// gone (the process is then its orphan): a killed engine never stops its
// plugins, and one left serving would outlive the test.
func exitWithParent() {
	parent := os.Getppid()
	for range time.Tick(50 * time.Millisecond) {
		if os.Getppid() != parent {
			os.Exit(1)
		}
	}
}

// main serves the provider the way the engine expects of a plugin: it
// prints the port it listens on and stops on SIGINT.
func main() {
	go exitWithParent()
	stop := make(chan bool)
	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Cancel: stop,
		Init: func(srv *grpc.Server) error {
			pulumirpc.RegisterResourceProviderServer(srv, &slow{})
			return nil
		},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(handle.Port)
	interrupt := make(chan os.Signal, 1)
	signal.Notify(interrupt, os.Interrupt)
	go func() {
		<-interrupt
		stop <- true
	}()
	if err := <-handle.Done; err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// The Go SDK on both sides of toolnexus, for the interop suite (scripts/tests.d/interop.sh):
// `interop server` is a stdio MCP server whose tools ask mid-call; `interop client <target>
// <version>` checks toolnexus's /mcp (target: a URL) or `toolnexus mcp` (target: "stdio", then
// node, cli and config) for each upstream prefix in $UPSTREAMS: list, call, structured output,
// progress, cancellation, and an upstream question answered by this client. One PASS/FAIL line
// per check; the exit status is 1 when any failed.
package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoIn struct {
	Message string `json:"message"`
}
type cityIn struct {
	City string `json:"city"`
}
type weatherOut struct {
	City    string  `json:"city"`
	Celsius float64 `json:"celsius"`
}
type countIn struct {
	N int `json:"n"`
}
type sleepIn struct {
	Seconds float64 `json:"seconds"`
}
type none struct{}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func serve() error {
	s := mcp.NewServer(&mcp.Implementation{Name: "go-asker", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes the message"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		return text("go: " + in.Message), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "weather", Description: "Structured output"}, func(_ context.Context, _ *mcp.CallToolRequest, in cityIn) (*mcp.CallToolResult, weatherOut, error) {
		return nil, weatherOut{City: in.City, Celsius: 21.5}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "count", Description: "Reports progress n times"}, func(ctx context.Context, req *mcp.CallToolRequest, in countIn) (*mcp.CallToolResult, any, error) {
		if token := req.Params.GetProgressToken(); token != nil {
			for i := 1; i <= in.N; i++ {
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(i), Total: float64(in.N)})
			}
		}
		return text(fmt.Sprintf("counted %d", in.N)), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "sleep", Description: "Sleeps, so a caller can cancel it"}, func(ctx context.Context, _ *mcp.CallToolRequest, in sleepIn) (*mcp.CallToolResult, any, error) {
		select {
		case <-time.After(time.Duration(in.Seconds * float64(time.Second))):
			return text("slept"), nil, nil
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	})
	mcp.AddTool(s, &mcp.Tool{Name: "greet", Description: "Asks for a name mid-call"}, func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{
			Message:         "What is your name?",
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []string{"name"}},
		})
		if err != nil {
			return nil, nil, err
		}
		if res.Action != "accept" {
			return text("no name (" + res.Action + ")"), nil, nil
		}
		return text(fmt.Sprintf("Hello, %v!", res.Content["name"])), nil, nil
	})
	return s.Run(context.Background(), &mcp.StdioTransport{})
}

var failed = false

func report(label, name string, ok bool, detail string) {
	if ok {
		fmt.Printf("PASS go[%s] %s\n", label, name)
		return
	}
	failed = true
	fmt.Printf("FAIL go[%s] %s: %s\n", label, name, detail)
}

func textOf(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

func check(ctx context.Context, cs *mcp.ClientSession, label, prefix string, progress *[]float64) {
	call := func(name string, args any) (*mcp.CallToolResult, error) {
		return cs.CallTool(ctx, &mcp.CallToolParams{Name: prefix + "_" + name, Arguments: args})
	}
	tools, err := cs.ListTools(ctx, nil)
	names := []string{}
	if err == nil {
		for _, t := range tools.Tools {
			names = append(names, t.Name)
		}
	}
	joined := strings.Join(names, ",")
	report(label, prefix+" list", err == nil && strings.Contains(joined, prefix+"_echo") && strings.Contains(joined, prefix+"_greet"), fmt.Sprint(err, joined))

	r, err := call("echo", map[string]any{"message": "hi"})
	report(label, prefix+" call", err == nil && !r.IsError && strings.Contains(textOf(r), "hi"), fmt.Sprint(err))

	r, err = call("weather", map[string]any{"city": "Oslo"})
	sc, _ := r.StructuredContent.(map[string]any)
	report(label, prefix+" structured output", err == nil && sc["city"] == "Oslo", fmt.Sprint(err, r.StructuredContent))

	*progress = nil
	params := &mcp.CallToolParams{Name: prefix + "_count", Arguments: map[string]any{"n": 3}}
	params.SetProgressToken("p-" + prefix)
	r, err = cs.CallTool(ctx, params)
	// The handler runs on its own goroutine: the last notification may land just after the result.
	for i := 0; i < 50 && len(*progress) == 0; i++ {
		time.Sleep(20 * time.Millisecond)
	}
	report(label, prefix+" progress", err == nil && !r.IsError && len(*progress) >= 1, fmt.Sprint(err, *progress))

	short, cancel := context.WithTimeout(ctx, time.Second)
	_, err = cs.CallTool(short, &mcp.CallToolParams{Name: prefix + "_sleep", Arguments: map[string]any{"seconds": 30}})
	cancel()
	after, err2 := call("echo", map[string]any{"message": "after"})
	// The SDK's own deadline error, or the gateway's answer to the cancelled call, whichever came first.
	cancelled := errors.Is(err, context.DeadlineExceeded) || (err != nil && strings.Contains(err.Error(), "cancelled"))
	report(label, prefix+" cancellation", cancelled && err2 == nil && strings.Contains(textOf(after), "after"), fmt.Sprint(err, err2))

	r, err = call("greet", map[string]any{})
	detail := fmt.Sprint(err)
	if r != nil {
		detail = textOf(r)
	}
	report(label, prefix+" upstream question answered", err == nil && strings.Contains(textOf(r), "Hello, Ada!"), detail)
}

func client(args []string) error {
	ctx := context.Background()
	var progress []float64
	c := mcp.NewClient(&mcp.Implementation{Name: "go-interop", Version: "1.0.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			progress = append(progress, req.Params.Progress)
		},
	})
	var transport mcp.Transport
	target, version := args[0], args[1]
	label := "http " + version
	if target == "stdio" {
		label = "stdio " + version
		transport = &mcp.CommandTransport{Command: exec.Command(args[2], args[3], "mcp", "--config", args[4])}
	} else {
		transport = &mcp.StreamableClientTransport{Endpoint: target, HTTPClient: http.DefaultClient, DisableStandaloneSSE: true}
	}
	cs, err := c.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		report(label, "connect", false, err.Error())
		return nil
	}
	defer cs.Close()
	for _, prefix := range strings.Split(os.Getenv("UPSTREAMS"), ",") {
		check(ctx, cs, label, prefix, &progress)
	}
	return nil
}

func main() {
	var err error
	if os.Args[1] == "server" {
		err = serve()
	} else {
		err = client(os.Args[2:])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}

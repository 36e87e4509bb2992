package rpc

// Test hooks: speak another protocol version.

func SetServerProtocol(o *ServerOptions, p int) { o.protocol = p }

func SetClientProtocol(o *ClientOptions, p int) { o.protocol = p }

package io.taskfence.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Makes a real server answer on another port: every connection to {@code 127.0.0.1:listenPort} is piped to
 * {@code 127.0.0.1:targetPort}. Closing it drops every connection and stops listening, as a server that went
 * down would; opening a new one on the same port brings the server back.
 */
public final class TcpForwarder implements AutoCloseable {

    private final ServerSocket listener;
    private final int targetPort;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

    private TcpForwarder(ServerSocket listener, int targetPort) {
        this.listener = listener;
        this.targetPort = targetPort;
    }

    public static TcpForwarder open(int listenPort, int targetPort) throws IOException {
        ServerSocket listener = new ServerSocket();
        listener.setReuseAddress(true);
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), listenPort));
        TcpForwarder forwarder = new TcpForwarder(listener, targetPort);
        Thread.ofPlatform().daemon().name("forward-" + listenPort).start(forwarder::acceptUntilClosed);
        return forwarder;
    }

    private void acceptUntilClosed() {
        while (!listener.isClosed()) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException closed) {
                continue;
            }
            sockets.add(client);
            try {
                Socket server = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                sockets.add(server);
                Thread.ofPlatform().daemon().start(() -> pipe(client, server));
                Thread.ofPlatform().daemon().start(() -> pipe(server, client));
            } catch (IOException refused) {
                closeQuietly(client); // the client sees its connection drop, as the server's own refusal would show
            }
        }
    }

    private void pipe(Socket from, Socket to) {
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            in.transferTo(out);
        } catch (IOException e) {
            // one side closed
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    @Override
    public void close() {
        closeQuietly(listener);
        sockets.forEach(TcpForwarder::closeQuietly);
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception e) {
            // already closed
        }
    }
}

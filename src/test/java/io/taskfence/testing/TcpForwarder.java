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
 * down would; opening a new one on the same port brings the server back. {@link #stall()} makes the path
 * stop delivering instead, as a network partition does: calls hang rather than fail.
 */
public final class TcpForwarder implements AutoCloseable {

    private final ServerSocket listener;
    private final int targetPort;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    // Guarded by this.
    private boolean stalled;

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

    public int listenPort() {
        return listener.getLocalPort();
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

    /**
     * From now on no byte passes in either direction, and new connections are accepted but get no answer;
     * every connection stays open. What a client sends meanwhile waits for {@link #resume()}.
     */
    public synchronized void stall() {
        stalled = true;
    }

    /**
     * Passes bytes again. A connection that sent something during the stall is dropped, and what it sent is
     * lost, as if the partition had outlasted its time-outs; the connections that stayed idle carry on.
     */
    public synchronized void resume() {
        stalled = false;
        notifyAll();
    }

    /** Waits while stalled; false if it had to wait (the bytes in hand are then dropped with the connection). */
    private synchronized boolean awaitFlowing() throws InterruptedException {
        if (!stalled) {
            return true;
        }
        while (stalled) {
            wait();
        }
        return false;
    }

    private void pipe(Socket from, Socket to) {
        byte[] buffer = new byte[8192];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            for (int read = in.read(buffer); read >= 0 && awaitFlowing(); read = in.read(buffer)) {
                out.write(buffer, 0, read);
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            // one side closed
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    @Override
    public void close() {
        resume(); // wakes the pipes that wait, so that they end with their sockets
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

package io.taskfence.deploy;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs the real {@code kubectl kustomize}, the renderer {@code kubectl apply -k} uses, so that the tests
 * see exactly what a cluster would receive. A missing kubectl fails the tests: skipping them would let a
 * broken k8s/ pass unnoticed.
 */
final class Kubectl {

    private static final long TIME_LIMIT_SECONDS = 60;

    private Kubectl() {
    }

    /** The YAML that {@code kubectl kustomize dir} prints. */
    static String kustomize(Path dir) {
        Process process;
        try {
            process = new ProcessBuilder("kubectl", "kustomize", dir.toString()).start();
        } catch (IOException e) {
            throw new AssertionError("kubectl is needed to check k8s/ but could not be started (" + e.getMessage()
                    + "); install kubectl 1.27 or newer (it includes kustomize) and put it on the PATH", e);
        }
        try {
            process.getOutputStream().close();
            CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> readAll(process.getInputStream()));
            CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> readAll(process.getErrorStream()));
            if (!process.waitFor(TIME_LIMIT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("kubectl kustomize " + dir + " did not finish within " + TIME_LIMIT_SECONDS + " s");
            }
            if (process.exitValue() != 0) {
                throw new AssertionError("kubectl kustomize " + dir + " failed (exit " + process.exitValue() + "):\n" + err.join());
            }
            return out.join();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new AssertionError("interrupted while kubectl kustomize " + dir + " ran", e);
        }
    }

    private static String readAll(InputStream stream) {
        try (stream) {
            return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

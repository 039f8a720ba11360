package io.taskfence.lock;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** A Lua script from the class path and the SHA-1 that Redis's EVALSHA knows it by. */
record LuaScript(String resource, String source, String sha1) {

    static LuaScript load(String resource) {
        try (InputStream in = LuaScript.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Lua script " + resource + " is not on the class path");
            }
            String source = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return new LuaScript(resource, source, sha1(source));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read Lua script " + resource, e);
        }
    }

    private static String sha1(String source) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM provides SHA-1", e);
        }
    }
}

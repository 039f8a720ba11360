package io.taskfence.architecture;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The text constants of a compiled class: its constant pool's UTF-8 entries, where javac puts every string literal,
 * every constant expression it folded, and the literal parts of a runtime concatenation (its recipe). Read by hand
 * because the JDK's own class-file API is not final in Java 21, the release the project compiles for.
 */
final class ClassConstants {

    private ClassConstants() {
    }

    static List<String> of(byte[] classFile) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(classFile));
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException("not a class file");
        }
        in.readUnsignedShort(); // minor version
        in.readUnsignedShort(); // major version
        int count = in.readUnsignedShort();
        List<String> texts = new ArrayList<>();
        for (int index = 1; index < count; index++) {
            int tag = in.readUnsignedByte();
            switch (tag) {
                case 1 -> texts.add(in.readUTF()); // Utf8
                case 7, 8, 16, 19, 20 -> in.skipNBytes(2); // Class, String, MethodType, Module, Package
                case 15 -> in.skipNBytes(3); // MethodHandle
                case 3, 4, 9, 10, 11, 12, 17, 18 -> in.skipNBytes(4); // Integer, Float, refs, NameAndType, (Invoke)Dynamic
                case 5, 6 -> { // Long, Double: two slots
                    in.skipNBytes(8);
                    index++;
                }
                default -> throw new IOException("unknown constant pool tag " + tag + " at " + index);
            }
        }
        return texts;
    }
}

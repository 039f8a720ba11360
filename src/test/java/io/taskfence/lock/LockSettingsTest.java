package io.taskfence.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;

import org.junit.jupiter.api.Test;

class LockSettingsTest {

    @Test
    void aPrefixWithABraceIsRefusedBecauseItWouldReplaceTheKeysHashTags() {
        for (String prefix : new String[] {"tenant{a}", "a{b", "a}b"}) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> new LockSettings(prefix, "replica-0", Duration.ofSeconds(30)));
            assertTrue(refused.getMessage().contains("taskfence.key-prefix"), refused.getMessage());
        }
    }

    @Test
    void aLocksKeysShareTheNameAsTheirOnlyHashTag() {
        LockKeys keys = LockKeys.of(new LockSettings("team-a.prod", "replica-0", Duration.ofSeconds(30)).keyPrefix(),
                "dispatch");
        assertEquals("team-a.prod:lock:{dispatch}", keys.lock());
        assertEquals("team-a.prod:fence:{dispatch}", keys.fence());
        assertEquals("team-a.prod:lock-released", keys.releaseChannel());
    }
}

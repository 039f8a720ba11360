package io.taskfence.config;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import jakarta.validation.MessageInterpolator;
import jakarta.validation.Validation;
import jakarta.validation.Validator;

import org.junit.jupiter.api.Test;

import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.ConfigValidationException;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.smallrye.config.validator.BeanValidationConfigValidator;
import io.taskfence.TaskfenceConfig;

/**
 * A period or lease of zero (or less) would make a job spin, a lease lapse at once or every occurrence of a
 * {@code skip} schedule count as missed: the start stops and names the key, as Quarkus does with the same
 * mapping and validator.
 */
class PositiveDurationsTest {

    private static final List<String> POSITIVE = List.of("taskfence.lock.lease", "taskfence.dispatch.interval",
            "taskfence.worker.lease", "taskfence.recovery.interval", "taskfence.recovery.enqueued-timeout",
            "taskfence.schedules.interval", "taskfence.schedules.misfire-threshold", "taskfence.retention.interval",
            "taskfence.http.timeout", "taskfence.retry.backoff-base", "taskfence.retry.backoff-cap");

    @Test
    void theDefaultsPass() {
        assertDoesNotThrow(() -> read(Map.of()));
    }

    @Test
    void aZeroOrNegativeDurationStopsTheStartNamingItsKey() {
        for (String key : POSITIVE) {
            for (String value : List.of("0s", "-1s")) {
                ConfigValidationException refused = assertThrows(ConfigValidationException.class,
                        () -> read(Map.of(key, value)), key + "=" + value);
                assertTrue(refused.getMessage().contains(key), key + "=" + value + ": " + refused.getMessage());
            }
            assertDoesNotThrow(() -> read(Map.of(key, "1ms")), key + "=1ms");
        }
    }

    // Messages as written: what is checked is that the key is named (interpolating them needs an EL library).
    private final Validator validator = Validation.byDefaultProvider().configure()
            .messageInterpolator(new RawMessages()).buildValidatorFactory().getValidator();

    private record RawMessages() implements MessageInterpolator {
        @Override
        public String interpolate(String template, Context context) {
            return template;
        }

        @Override
        public String interpolate(String template, Context context, Locale locale) {
            return template;
        }
    }

    private TaskfenceConfig read(Map<String, String> values) {
        return new SmallRyeConfigBuilder()
                .withMapping(TaskfenceConfig.class)
                .withConverter(Duration.class, 200, new DurationConverter())
                .withValidator((BeanValidationConfigValidator) () -> validator)
                .withSources(new PropertiesConfigSource(values, "test", 500))
                .build()
                .getConfigMapping(TaskfenceConfig.class);
    }
}

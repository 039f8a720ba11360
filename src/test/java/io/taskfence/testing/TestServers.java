package io.taskfence.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;

/**
 * The real servers every {@code @QuarkusTest} uses, each with a key prefix or schema of its own for this
 * run; one application start serves all test classes.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@WithTestResource(value = RedisKeySpace.class, scope = TestResourceScope.GLOBAL)
@WithTestResource(value = PostgresSchema.class, scope = TestResourceScope.GLOBAL)
@WithTestResource(value = UnresponsiveRedis.class, scope = TestResourceScope.GLOBAL)
@WithTestResource(value = ApiKeysForTests.class, scope = TestResourceScope.GLOBAL)
public @interface TestServers {
}

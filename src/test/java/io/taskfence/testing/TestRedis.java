package io.taskfence.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;

/** The test resources every test class shares (one application start for all of them). */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@WithTestResource(value = RedisKeySpace.class, scope = TestResourceScope.GLOBAL)
@WithTestResource(value = UnresponsiveRedis.class, scope = TestResourceScope.GLOBAL)
public @interface TestRedis {
}

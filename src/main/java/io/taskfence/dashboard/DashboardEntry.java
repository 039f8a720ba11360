package io.taskfence.dashboard;

import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

import io.vertx.ext.web.Router;

/**
 * Sends {@code /} and {@code /dashboard} to {@code /dashboard/}, whose files (META-INF/resources/dashboard) Quarkus
 * serves as static resources, without a key: the pages hold no data, and every call they make to /api/v1 carries
 * the key the user typed in.
 */
@Singleton
class DashboardEntry {

    static final String HOME = "/dashboard/";

    void install(@Observes Router router) {
        for (String path : new String[] { "/", "/dashboard" }) {
            // Vert.x matches "/dashboard" for "/dashboard/" too: only the exact path is sent on.
            router.get(path).handler(context -> {
                if (context.request().path().equals(path)) {
                    context.redirect(HOME);
                } else {
                    context.next();
                }
            });
        }
    }
}

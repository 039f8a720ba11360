package io.taskfence.api.keys;

import java.util.List;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

import io.taskfence.api.auth.KeyRules;

/** The body of {@code POST /api/v1/keys} (DESIGN.md, "REST API", "Keys"). */
@Schema(name = "NewKey")
public record NewKey(
        @NotNull @Pattern(regexp = KeyRules.NAME_PATTERN, message = NAME_RULE)
        @Schema(description = "the key's name, the owner of the tasks it submits; never given again, even once revoked",
                examples = "tenant42")
        String name,

        @NotNull @Pattern(regexp = ROLES, message = ROLE_RULE)
        @Schema(enumeration = { "submit", "admin", "worker" }, description = "submit: its own tasks; admin: every "
                + "task, and the service; worker: claims the remote types it names")
        String role,

        @Size(max = MAX_TYPES, message = TYPES_RULE)
        @Schema(description = "a worker key's remote types, or [\"*\"] for every one; only a worker key names any")
        List<@NotNull @Size(min = 1, max = 64) String> types,

        @Min(0) @Max(MAX_UNFINISHED)
        @Schema(description = "unfinished tasks it may have at once; taskfence.auth.max-unfinished "
                + "when absent")
        Integer maxUnfinished,

        @Min(1) @Max(100)
        @Schema(description = "its share of each dispatch batch against other keys; 1 when absent")
        Integer weight,

        @Min(0) @Max(1000)
        @Schema(description = "the highest priority its tasks may ask for; 1000 when absent")
        Integer maxPriority,

        @Pattern(regexp = RATE, message = RATE_RULE)
        @Schema(description = "requests it may make, <n>/s or <n>/m (a batch counts its tasks); "
                + "taskfence.auth.rate when absent", examples = "10/s")
        String rate,

        @Size(max = MAX_HOSTS, message = HOSTS_RULE)
        @Schema(description = "the destinations its http tasks may call, some of "
                + "taskfence.http.allowed-hosts; all of those when absent")
        List<@NotNull @Size(min = 1, max = 300) String> allowedHosts) {

    static final String NAME_RULE = "must be 1 to 32 lower-case letters and digits";
    static final String ROLES = "submit|admin|worker";
    static final String ROLE_RULE = "must be submit, admin or worker";
    static final int MAX_TYPES = 100;
    static final String TYPES_RULE = "must name at most " + MAX_TYPES + " types";
    static final int MAX_UNFINISHED = 100_000_000;
    static final String RATE = "[1-9][0-9]{0,8}/[sm]";
    static final String RATE_RULE = "must be <n>/s or <n>/m with n from 1, e.g. 10/s";
    static final int MAX_HOSTS = 100;
    static final String HOSTS_RULE = "must name at most " + MAX_HOSTS + " destinations";
}

package io.taskfence.api.keys;

import java.net.URI;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.Response.Status;
import jakarta.ws.rs.core.UriInfo;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.headers.Header;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import io.quarkus.security.identity.SecurityIdentity;
import io.taskfence.TaskfenceConfig;
import io.taskfence.api.Delay;
import io.taskfence.api.auth.KeyOwner;
import io.taskfence.api.auth.KeyRules;
import io.taskfence.api.auth.Roles;
import io.taskfence.api.problem.Problems;
import io.taskfence.handlers.builtin.CallbackSecret;
import io.taskfence.handlers.builtin.KeyDestinations;
import io.taskfence.keys.KeyDirectory;
import io.taskfence.keys.KeySecret;
import io.taskfence.keys.KeySettings;
import io.taskfence.keys.StoredKeys;
import io.taskfence.types.Rate;
import io.taskfence.types.RemoteTypes;

/**
 * API keys at run time (DESIGN.md, "REST API", "Keys"), for admin keys: made with a secret shown once, listed without
 * secrets, their limits changed, rotated with an overlap, revoked. A key grants nothing beyond the calling key's
 * limits, and a key with more than the caller's cannot be changed, rotated (which would hand its secret over) or
 * revoked by it. Configured keys are listed and cannot be changed here. Each change reaches every replica through
 * the {@link KeyDirectory}.
 */
@Path("/api/v1/keys")
@Produces(MediaType.APPLICATION_JSON)
@SecurityRequirement(name = "apiKey")
@Tag(name = "Keys", description = "API keys made, changed, rotated and revoked at run time")
public class KeysResource {

    /** Keys made through the API and not revoked, at most: the directory's copy and dispatch's weights stay small. */
    static final int MAX_STORED_KEYS = 1_000;
    static final Duration MAX_OVERLAP = Duration.ofDays(7);
    private static final String NAME = "the key's name";

    private final KeyDirectory keys;
    private final StoredKeys table;
    private final RemoteTypes remote;
    private final KeyDestinations destinations;
    private final SecurityIdentity identity;
    private final SecureRandom random = new SecureRandom();
    private final boolean authentication;

    KeysResource(KeyDirectory keys, StoredKeys table, RemoteTypes remote, KeyDestinations destinations,
            SecurityIdentity identity, TaskfenceConfig config) {
        this.authentication = config.auth().enabled();
        this.keys = keys;
        this.table = table;
        this.remote = remote;
        this.destinations = destinations;
        this.identity = identity;
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "createKey", summary = "Make an API key; its secret is answered this once")
    @APIResponse(responseCode = "201", description = "the key, with its secret and callback secret",
            headers = @Header(name = "Location", description = "the key's URL",
                    schema = @Schema(type = SchemaType.STRING, format = "uri")),
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = KeyView.Created.class)))
    public Response create(@NotNull(message = "a JSON object with at least name and role") @Valid NewKey body,
            UriInfo uri) {
        authenticationOn();
        if (keys.named(body.name()).filter(KeySettings::configured).isPresent()) {
            throw Problems.about("name", Status.CONFLICT, "'" + body.name() + "' is a configured key "
                    + "(taskfence.auth.keys." + body.name() + "); choose another name");
        }
        String callbackSecret = CallbackSecret.generate(random);
        KeySettings wanted = checked(new KeySettings(body.name(), body.role(), Set.copyOf(orEmpty(body.types())),
                optional(body.maxUnfinished()), Optional.ofNullable(body.weight()).orElse(1),
                optional(body.maxPriority()), Optional.ofNullable(body.rate()).map(Rate::parse),
                Optional.ofNullable(body.allowedHosts()), Optional.of(callbackSecret), false));
        KeySecret secret = KeySecret.generate(random);
        switch (table.create(wanted, secret.digest(), callerName(), MAX_STORED_KEYS)) {
            case FULL -> throw Problems.of(Status.CONFLICT, "there are " + MAX_STORED_KEYS + " keys made through the "
                    + "API already, the most there may be; revoke one first");
            case NAME_TAKEN -> throw Problems.about("name", Status.CONFLICT, "a key named '" + body.name() + "' exists "
                    + "or existed, and its name still owns its tasks, schedules or audit entries; choose another name");
            case CREATED -> { }
        }
        keys.changed(wanted.name());
        URI location = uri.getBaseUriBuilder().path(KeysResource.class).path(wanted.name()).build();
        return Response.created(location).entity(new KeyView.Created(KeyView.of(wanted), secret.text(), callbackSecret))
                .build();
    }

    @GET
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "listKeys", summary = "Every API key not revoked, configured or made here, by name")
    public KeyView.Listing list() {
        authenticationOn();
        return new KeyView.Listing(keys.all().stream().map(KeyView::of).toList());
    }

    @GET
    @Path("/{name}")
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "getKey", summary = "One API key, without its secret")
    public KeyView get(@Parameter(description = NAME, schema = @Schema(type = SchemaType.STRING,
            pattern = KeyRules.NAME_PATTERN)) @PathParam("name") String name) {
        authenticationOn();
        return KeyView.of(keys.named(name).orElseThrow(() -> notFound(name)));
    }

    @PATCH
    @Path("/{name}")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "changeKey", summary = "Change the limits the body names")
    public KeyView change(@Parameter(description = NAME, schema = @Schema(type = SchemaType.STRING,
            pattern = KeyRules.NAME_PATTERN)) @PathParam("name") String name,
            @NotNull(message = "a JSON object with the limits to change") @Valid KeyChanges body) {
        notConfigured(name);
        KeySettings changed = table.change(name, current -> {
            mayChange(current);
            return checked(new KeySettings(name, current.role(),
                    body.types() == null ? current.workerTypes() : Set.copyOf(body.types()),
                    body.maxUnfinished() == null ? current.maxUnfinished() : OptionalInt.of(body.maxUnfinished()),
                    body.weight() == null ? current.weight() : body.weight(),
                    body.maxPriority() == null ? current.maxPriority() : OptionalInt.of(body.maxPriority()),
                    body.rate() == null ? current.rate() : Optional.of(Rate.parse(body.rate())),
                    body.allowedHosts() == null ? current.allowedHosts() : Optional.of(body.allowedHosts()),
                    current.callbackSecret(), false));
        }).orElseThrow(() -> notFound(name));
        keys.changed(name);
        return KeyView.of(changed);
    }

    /** A new secret; the ones before it keep working for the overlap the body names, then stop. */
    @POST
    @Path("/{name}/rotate")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "rotateKey", summary = "Give a key a new secret; the old one works for an overlap")
    public KeyView.Rotated rotate(@Parameter(description = NAME, schema = @Schema(type = SchemaType.STRING,
            pattern = KeyRules.NAME_PATTERN)) @PathParam("name") String name,
            @NotNull(message = "a JSON object with overlap") @Valid Rotation body) {
        Duration overlap = Delay.parseSpan(body.overlap()).orElseThrow();
        if (overlap.compareTo(MAX_OVERLAP) > 0) {
            throw Problems.about("overlap", Status.BAD_REQUEST, "overlap must be at most 168h (7 days), not "
                    + body.overlap());
        }
        notConfigured(name);
        KeySecret secret = KeySecret.generate(random);
        Instant ends = table.rotate(name, this::mayChange, secret.digest(), overlap).orElseThrow(() -> notFound(name));
        keys.changed(name);
        return new KeyView.Rotated(KeyView.of(keys.named(name).orElseThrow(() -> notFound(name))), secret.text(), ends);
    }

    /** Its secrets stop working on every replica; its tasks stay, and its name is not given again. */
    @DELETE
    @Path("/{name}")
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "revokeKey", summary = "Revoke an API key")
    @APIResponse(responseCode = "204", description = "revoked")
    public Response revoke(@Parameter(description = NAME, schema = @Schema(type = SchemaType.STRING,
            pattern = KeyRules.NAME_PATTERN)) @PathParam("name") String name) {
        notConfigured(name);
        if (!table.revoke(name, this::mayChange)) {
            throw notFound(name);
        }
        keys.changed(name);
        return Response.noContent().build();
    }

    /** {@code wanted}, once its types and hosts are ones it may have and it grants nothing beyond the caller. */
    private KeySettings checked(KeySettings wanted) {
        workerTypes(wanted);
        wanted.allowedHosts().flatMap(hosts -> destinations.whyNot("allowedHosts", hosts)).ifPresent(why -> {
            throw Problems.about("allowedHosts", Status.BAD_REQUEST, why);
        });
        List<String> beyond = wanted.beyond(caller(), keys.defaults());
        if (!beyond.isEmpty()) {
            throw Problems.of(Status.FORBIDDEN, "a key may not grant more than the calling key has: "
                    + String.join("; ", beyond));
        }
        return wanted;
    }

    /** A key with more than the caller's limits is not the caller's to change, rotate or revoke. */
    private void mayChange(KeySettings current) {
        List<String> beyond = current.beyond(caller(), keys.defaults());
        if (!beyond.isEmpty()) {
            throw Problems.of(Status.FORBIDDEN, "key '" + current.name() + "' has more than the calling key ("
                    + String.join("; ", beyond) + "): only a key with as much may change it");
        }
    }

    private void workerTypes(KeySettings key) {
        Set<String> types = key.workerTypes();
        if (!Roles.WORKER.equals(key.role())) {
            if (!types.isEmpty()) {
                throw Problems.about("types", Status.BAD_REQUEST, "only a worker key names types");
            }
            return;
        }
        if (types.isEmpty()) {
            throw Problems.about("types", Status.BAD_REQUEST, "a worker key names its remote types, or [\"*\"]");
        }
        if (types.contains(KeyOwner.EVERY_REMOTE_TYPE)) {
            if (types.size() > 1) {
                throw Problems.about("types", Status.BAD_REQUEST, "\"*\" (every remote type) stands alone");
            }
            return;
        }
        List<String> unknown = new ArrayList<>(types.stream().filter(type -> !remote.contains(type)).sorted().toList());
        if (!unknown.isEmpty()) {
            throw Problems.about("types", Status.BAD_REQUEST, "not remote types: " + unknown);
        }
    }

    private void notConfigured(String name) {
        authenticationOn();
        if (keys.named(name).filter(KeySettings::configured).isPresent()) {
            throw Problems.of(Status.CONFLICT, "'" + name + "' is a configured key: change taskfence.auth.keys."
                    + name + " and restart the replicas");
        }
    }

    /**
     * Keys made while authentication is off would start to work once it is on, made by no one: the operations
     * refuse instead.
     */
    private void authenticationOn() {
        if (!authentication) {
            throw Problems.of(Status.CONFLICT, "authentication is off (taskfence.auth.enabled=false): there are no "
                    + "keys to manage, and a key made now would start to work, made by no one, once it is on");
        }
    }

    /** The calling key's settings; a key revoked while its request ran has none to grant. */
    private KeySettings caller() {
        return keys.named(callerName()).orElseThrow(() -> Problems.of(Status.FORBIDDEN, "the calling key '"
                + callerName() + "' is not known here any more (revoked?)"));
    }

    private String callerName() {
        return KeyOwner.of(identity).name();
    }

    private static OptionalInt optional(Integer value) {
        return value == null ? OptionalInt.empty() : OptionalInt.of(value);
    }

    private static List<String> orEmpty(List<String> values) {
        return values == null ? List.of() : values;
    }

    private static RuntimeException notFound(String name) {
        return Problems.of(Status.NOT_FOUND, "no API key named '" + name + "' (or it was revoked)");
    }
}

package io.taskfence.api;

import java.util.Set;

import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.responses.APIResponse;

import io.quarkus.smallrye.openapi.OpenApiFilter;

/**
 * The {@value #NAME} header of the listing's and the count's answers (api.tasks' Searches sets it), described in the
 * OpenAPI document. Run when the document is built.
 */
@OpenApiFilter(stages = OpenApiFilter.RunStage.BUILD)
public final class SearchedFromHeader implements OASFilter {

    /** The {@code createdAfter} a text or error search used when its filter named none. */
    public static final String NAME = "Searched-Created-After";

    private static final Set<String> SEARCHES = Set.of("listTasks", "countTasks");

    @Override
    public void filterOpenAPI(OpenAPI openAPI) {
        openAPI.getPaths().getPathItems().values().forEach(path -> path.getOperations().values().stream()
                .filter(operation -> operation.getOperationId() != null && SEARCHES.contains(operation.getOperationId()))
                .forEach(operation -> {
                    APIResponse ok = operation.getResponses().getAPIResponse("200");
                    if (ok == null) {
                        throw new IllegalStateException(operation.getOperationId() + " has no 200 answer to describe");
                    }
                    ok.addHeader(NAME, OASFactory.createHeader()
                            .description("Only with text or error and no createdAfter: the createdAfter the search "
                                    + "used instead, taskfence.api.search-window (default 24h) before the request")
                            .schema(OASFactory.createSchema().addType(
                                    org.eclipse.microprofile.openapi.models.media.Schema.SchemaType.STRING)
                                    .format("date-time")));
                }));
    }
}

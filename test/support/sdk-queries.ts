/** The lineage query of the SDK's LineageClient (datahub/sdk/lineage_client.py, acryl-datahub 1.x). */
export const SDK_LINEAGE_QUERY = `query scrollAcrossLineage($input: ScrollAcrossLineageInput!) {
  scrollAcrossLineage(input: $input) {
    nextScrollId
    searchResults {
      degree
      entity { urn type ... on Dataset { name platform { name } properties { description } } ... on DataJob { jobId dataPlatformInstance { platform { name } } properties { name description } } }
      paths { path { urn type } }
    }
  }
}`;

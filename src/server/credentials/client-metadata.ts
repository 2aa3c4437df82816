import type { Static } from "@sinclair/typebox";
import type { ClientMetadata } from "./schemas.js";

/** Where the gateway serves its Client ID Metadata Document, below server.publicUrl. */
export const CLIENT_METADATA_PATH = "/oauth/client-metadata.json";

/** server.publicUrl without its trailing slash: the login's URLs are below it. */
function baseOf(publicUrl: string): string {
  return publicUrl.replace(/\/+$/, "");
}

/** The redirect URI of every login: server.publicUrl + /oauth/callback. */
export function callbackUrlOf(publicUrl: string): string {
  return `${baseOf(publicUrl)}/oauth/callback`;
}

/** The document's URL, which is also the client id it declares. */
export function clientMetadataUrlOf(publicUrl: string): string {
  return `${baseOf(publicUrl)}${CLIENT_METADATA_PATH}`;
}

/**
 * The gateway as a public OAuth client, described by itself: the same document, so the same
 * client, on every replica, and nothing registered at any authorization server. Its one
 * redirect URI is the callback every login uses; PKCE, not a secret, protects the codes.
 */
export function clientMetadataDocument(publicUrl: string): Static<typeof ClientMetadata> {
  return {
    client_id: clientMetadataUrlOf(publicUrl),
    client_name: "toolnexus",
    client_uri: publicUrl,
    redirect_uris: [callbackUrlOf(publicUrl)],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
}

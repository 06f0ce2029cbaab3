export interface paths {
    "/v1/ping": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Verify a key
         * @description Who the key belongs to and what it may do. Any scope. Needs an API key (any scope).
         */
        get: operations["ping"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/generate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Generate a password or passphrase
         * @description Nothing is stored, logged or tied to a request. Any scope. Needs an API key (any scope).
         */
        post: operations["generate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/requests": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List requests
         * @description Newest first; draft requests are never listed. A client-scoped key sees only its client’s requests. Needs an API key with the `requests:read` scope.
         */
        get: operations["listRequests"];
        put?: never;
        /**
         * Create and commit a request
         * @description Recipients are active members of the organisation, addressed by email; each must have set up an identity key. The requester defaults to the first recipient. The service computes the recipient commitment and returns the complete link, with its fragment, once. The challenge code goes to the subject apart from the link. Needs an API key with the `requests:write` scope.
         */
        post: operations["createRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/requests/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a request
         * @description Needs an API key with the `requests:read` scope.
         */
        get: operations["getRequest"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/requests/{id}/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Revoke a request
         * @description A `pending` or `opened` request becomes `revoked` and its link stops working. No body. Needs an API key with the `requests:write` scope.
         */
        post: operations["revokeRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/requests/{id}/complete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Complete a request and purge its credential
         * @description Purges the envelope and attachments of a `submitted` request and marks it `completed`. Irreversible. No body. Needs an API key with the `requests:write` scope.
         */
        post: operations["completeRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tickets/{ref}/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Mark a ticket’s status
         * @description Applies the status to every request and share of the key’s scope linked to the ticket or quoting its reference. Tickets linked through a ticketing integration follow that integration’s path and are verified where the adapter can read tickets; a status sent with a key is otherwise unverified and destroys credentials only when the organisation trusts unverified statuses. `closed` (and `resolved`, per policy) destroys the credential and completes the request; `open` or `pending` inside the grace window cancels a scheduled destruction. Needs an API key with the `tickets:write` scope.
         */
        post: operations["markTicketStatus"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/requests/{id}/certificate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Custody certificate of a request
         * @description Who requested it, the fingerprints of the keys it was sealed to, and when it was submitted, revealed and purged: a signed document anyone can check offline with `verify-custody-certificate` and the keys at /.well-known/jwks.json. Needs an API key with the `events:read` scope.
         */
        get: operations["requestCertificate"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/shares/{id}/certificate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Custody certificate of a share
         * @description The sealed-to recipient fingerprint and the custody events created, revealed, expired and purged, signed as for a request. Needs an API key with the `events:read` scope.
         */
        get: operations["shareCertificate"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the event feed
         * @description Events in the order they happened, identical to webhook payloads. A client-scoped key sees only its client’s events. Needs an API key with the `events:read` scope.
         */
        get: operations["listEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List webhook subscriptions
         * @description The subscriptions visible to the key: all of the organisation’s, or a client-scoped key’s own. Needs an API key with the `webhooks:write` scope.
         */
        get: operations["listWebhooks"];
        put?: never;
        /**
         * Subscribe a URL to events
         * @description The subscription is owned by the key, and client-scoped when the key is. Its signing secret is shown once. Needs an API key with the `webhooks:write` scope.
         */
        post: operations["createWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Unsubscribe
         * @description Needs an API key with the `webhooks:write` scope.
         */
        delete: operations["deleteWebhook"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/requests/{id}/relink": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Give a request a new link
         * @description An extension of the specification. For a request whose link was sent to the wrong person, was locked by wrong codes (`needs_relink`), was made unusable by a recipient’s new key (`needs_relink`), has used up every code it may email in mode `email_otp` or `both` (`needs_relink`), was revoked, or expired before anything was submitted: a new link and, when the verification mode needs one, a new challenge code, both shown once; the old link and code stop working at once (the old link’s page says it was replaced). The recipients are resolved again from the members as they are now, the commitment computed again, the link’s lifetime restarted, and the request is `pending` again, with `needs_relink` false. A submitted, completed, or expired-after-submission request answers 409. Audited as `request.relinked`. No body. Needs an API key with the `requests:write` scope.
         */
        post: operations["relinkRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This document
         * @description The OpenAPI 3.1 description of the API. No key needed. No key needed.
         */
        get: operations["openapi"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/jwks.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Certificate signing keys
         * @description Every key that ever signed a certificate (RFC 7517), for `verify-custody-certificate`. No key needed; cacheable for a few minutes. No key needed.
         */
        get: operations["jwks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/inbound/ticket-status/{secret}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A generic ticket webhook: a ticket’s status changed
         * @description Authenticated by the secret in the URL. Optional hardening: a shared-secret header (configured name and value), or `X-Service-Signature: t=<unix_timestamp>,v1=<signature>`, the lower-case hex HMAC-SHA256 of `<timestamp>.<raw body>` keyed with the configured signing secret, within 300 seconds of now. The status is understood in any capitals (open, new, pending, on hold, resolved, solved, closed, complete, completed); any other value becomes `unknown` and never purges until mapped. Such posts are unverified: they update the ticket but destroy nothing unless the organisation trusts unverified webhooks. Every usable or unusable post answers 202, including one for an unknown ticket. No key: the URL carries the secret.
         */
        post: operations["inboundTicketStatus"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/inbound/ticket-trigger/{secret}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A generic ticket trigger: create a request for a ticket
         * @description Authenticated by the secret in the URL. Optional hardening: a shared-secret header (configured name and value), or `X-Service-Signature: t=<unix_timestamp>,v1=<signature>`, the lower-case hex HMAC-SHA256 of `<timestamp>.<raw body>` keyed with the configured signing secret, within 300 seconds of now. Creates a request linked to the ticket, with the link sent as the preset says (Team plan and above). Posting twice for the same ticket and preset creates no duplicate while the first request is open. When no request can be created, a `Ticket trigger failed` entry with the reason is audited. No key: the URL carries the secret.
         */
        post: operations["inboundTicketTrigger"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    event: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * An event, delivered to a subscribed URL
         * @description Signed by the Standard Webhooks scheme: verify over the exact raw body, before parsing. The signed content is `<webhook-id>.<webhook-timestamp>.<raw body>`, the HMAC-SHA256 key the base64-decoded part of the secret after `whsec_`; compare in constant time and reject timestamps more than 300 seconds away. The service sends no credential of its own (no `security`): the signature headers are what prove a delivery genuine. Answer any 2xx within 10 seconds; anything else is retried after 1 m, 5 m, 30 m, 2 h, 6 h, 12 h and 24 h, each counted from the attempt before: 8 attempts, the last about 44.6 hours (44 h 36 m) after the first; then the delivery is marked failed. Delivery is at least once: de-duplicate on the event `id`. Event types: request.created, request.opened, request.submitted, request.revealed, request.completed, credential.rotation_recommended, request.expired, request.revoked, request.reported, member.disabled, org_recovery.used, request.relinked, request.unrecoverable, ping (`ping` is sent only by a test action, the app’s Send test ping or the operator CLI’s `webhook-ping`, to the one subscription it tests; it cannot be subscribed to).
         */
        post: operations["eventDelivery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        /** @description A credential handoff request. It carries no envelope material, link token, code or key. */
        Request: {
            id: string;
            /** @constant */
            object: "request";
            /** @enum {string} */
            status: "pending" | "opened" | "submitted" | "completed" | "revoked" | "expired";
            client: {
                id: string;
                name: string;
            };
            subject: {
                name: string;
                email: string | null;
                /** @description E.164. */
                phone: string | null;
            };
            ticket: {
                ref: string | null;
                url: string | null;
                external_id: string | null;
                integration_id: string | null;
                status: ("open" | "pending" | "resolved" | "closed" | "unknown") | null;
            } | null;
            justification: string;
            template: {
                id: string;
                name: string;
            } | null;
            requester: {
                membership_id: string;
                name: string | null;
                email: string | null;
            };
            /** @description Labels only: identity keys never leave the browser. */
            recipients: {
                label: string;
                membership_id: string | null;
            }[];
            /** @description How long a submitted credential is kept. */
            ttl_minutes: number;
            /** @enum {string} */
            verification_mode: "none" | "challenge" | "email_otp" | "either" | "both";
            allow_attachments: boolean;
            attachments_count: number;
            needs_relink: boolean;
            unrecoverable: boolean;
            reveal_count: number;
            purge_reason: string | null;
            revoked_reason: string | null;
            /** Format: date-time */
            created_at: string;
            link_expires_at: string | null;
            opened_at: string | null;
            submitted_at: string | null;
            record_expires_at: string | null;
            last_revealed_at: string | null;
            purge_scheduled_at: string | null;
            completed_at: string | null;
            revoked_at: string | null;
            links: {
                /** Format: uri */
                self: string;
                /** Format: uri */
                app: string;
            };
        };
        /** @description A page of requests, newest first. */
        RequestList: {
            /** @constant */
            object: "list";
            data: components["schemas"]["Request"][];
            has_more: boolean;
            /** @description The `cursor` of the next page; null on the last. A page filtered by `status` and `client_id` together (the `status` of a client-scoped key too), or `ticket_ref` with either, looks through at most 2,000 requests, so it may hold fewer than `limit`, even none, while `has_more` is true. */
            next_cursor: string | null;
        };
        /** @description A created request with its link. The secret fields are shown once: null in an idempotent replay. */
        RequestCreationResult: {
            request: components["schemas"]["Request"];
            /** @description The complete link with its fragment; null on an idempotent replay. */
            link: string | null;
            /** @description Null on an idempotent replay. */
            link_without_fragment: string | null;
            /** @description The recipient commitment, which forms the fragment. */
            commit: string;
            /** @description The spoken code when the verification mode needs one; hand it to the subject apart from the link. Null on an idempotent replay. */
            challenge_code: string | null;
            /** @description Names of members left out because their key could not be verified; empty when all were included. */
            excluded_recipients: string[];
            commitment: {
                /** @constant */
                computed_by: "server";
                note: string;
            };
            delivery: {
                id: string;
                /** @enum {string} */
                method: "none" | "email" | "sms" | "ticket_reply";
                /**
                 * @description Whether the link went out: for `email` and `sms`, whether the mail or text service took the message; for `ticket_reply`, whether the helpdesk took the comment. On `failed`, send the link another way. An idempotent replay says what the first call said; `unconfirmed` while that call has not said it, because it is still sending or stopped after storing the request (retry a minute later; if it still says `unconfirmed`, the link may not have gone out, and a replay holds no link: issue a new one if the subject did not get it).
                 * @enum {string}
                 */
                status?: "sent" | "failed" | "unconfirmed";
                /** @description When it failed or is unconfirmed: why, and what to do, in words. */
                reason?: string;
            } | null;
        };
        /** @description A request given a new link: pending again, with a new link and code shown once (null in an idempotent replay); the old link and code no longer work. */
        RelinkResult: {
            request: components["schemas"]["Request"];
            /** @description The complete link with its fragment; null on an idempotent replay. */
            link: string | null;
            /** @description Null on an idempotent replay. */
            link_without_fragment: string | null;
            /** @description The recipient commitment computed again from the recipients’ current keys; it forms the fragment. */
            commit: string;
            /** @description A new spoken code when the verification mode needs one (the old one no longer works). Null on an idempotent replay. */
            challenge_code: string | null;
            /** @description Names of recipients left out this time: disabled since, or their replaced key awaits approval; empty when all were kept. */
            excluded_recipients: string[];
            commitment: {
                /** @constant */
                computed_by: "server";
                note: string;
            };
        };
        /** @description A generated password or passphrase. Nothing is stored, logged or tied to a request. */
        GeneratedCredential: {
            /** @constant */
            object: "generated_credential";
            /** @enum {string} */
            type: "password" | "passphrase";
            /** @description Never stored, so null on an idempotent replay. */
            value: string | null;
            length: number;
        };
        /** @description Who the key belongs to and what it may do. */
        PingResult: {
            /** @constant */
            ok: true;
            organisation: {
                id: string;
                name: string;
            };
            key: {
                name: string;
                prefix: string;
                scopes: ("requests:read" | "requests:write" | "tickets:write" | "events:read" | "webhooks:write")[];
                client: {
                    id: string;
                    name: string;
                } | null;
                expires_at: string | null;
            };
            /** @description A human label for the connection. */
            label: string;
        };
        /** @description An event of the organisation, derived from its audit chain: the same object in GET /v1/events and in a webhook delivery. De-duplicate on `id`. */
        Event: {
            /** @description Stable per organisation. */
            id: string;
            /** @constant */
            object: "event";
            /** @enum {string} */
            type: "request.created" | "request.opened" | "request.submitted" | "request.revealed" | "request.completed" | "credential.rotation_recommended" | "request.expired" | "request.revoked" | "request.reported" | "member.disabled" | "org_recovery.used" | "request.relinked" | "request.unrecoverable" | "ping";
            /** Format: date-time */
            occurred_at: string;
            organisation_id: string;
            client_id: string | null;
            /** @description The `since` cursor value that includes this event: a feed read with `since` at or after it has had it (`since` is exclusive, so `next_cursor` after this event is its `seq`); resume with `since` one less to read it again. */
            seq: number | null;
            data: {
                request?: components["schemas"]["Request"];
                member?: {
                    membership_id: string;
                    name: string | null;
                    email: string | null;
                };
                justification?: string;
                /** @description Audit metadata such as purge_reason, revoked_reason, reveal_count, channel; empty when there is none; never secrets. */
                details: {
                    [key: string]: unknown;
                };
                actor: {
                    /** @enum {string} */
                    type: "member" | "subject" | "system" | "api";
                    label: string | null;
                };
            };
        };
        /** @description Events in the order they happened. */
        EventList: {
            /** @constant */
            object: "list";
            data: components["schemas"]["Event"][];
            has_more: boolean;
            /** @description The `since` of the next call. */
            next_cursor: string;
        };
        /** @description A webhook subscription. Its signing secret is never shown again after creation. */
        Webhook: {
            id: string;
            /** @constant */
            object: "webhook";
            /**
             * Format: uri
             * @description An https URL on a public host.
             */
            url: string;
            description: string | null;
            events: ("request.created" | "request.opened" | "request.submitted" | "request.revealed" | "request.completed" | "credential.rotation_recommended" | "request.expired" | "request.revoked" | "request.reported" | "member.disabled" | "org_recovery.used" | "request.relinked" | "request.unrecoverable")[];
            is_active: boolean;
            /** @description Set when the creating key is client-scoped: only that client’s events are sent. */
            client_id: string | null;
            /** @enum {string} */
            created_via: "ui" | "api";
            failing_since: string | null;
            last_delivered_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description A created webhook subscription with its signing secret, shown this once. */
        WebhookCreationResult: {
            id: string;
            /** @constant */
            object: "webhook";
            /**
             * Format: uri
             * @description An https URL on a public host.
             */
            url: string;
            description: string | null;
            events: ("request.created" | "request.opened" | "request.submitted" | "request.revealed" | "request.completed" | "credential.rotation_recommended" | "request.expired" | "request.revoked" | "request.reported" | "member.disabled" | "org_recovery.used" | "request.relinked" | "request.unrecoverable")[];
            is_active: boolean;
            /** @description Set when the creating key is client-scoped: only that client’s events are sent. */
            client_id: string | null;
            /** @enum {string} */
            created_via: "ui" | "api";
            failing_since: string | null;
            last_delivered_at: string | null;
            /** Format: date-time */
            created_at: string;
            /** @description The signing secret (`whsec_` and base64); null on an idempotent replay. */
            secret: string | null;
        };
        /** @description The subscriptions the key may see. */
        WebhookList: {
            /** @constant */
            object: "list";
            data: components["schemas"]["Webhook"][];
        };
        /** @description What a ticket status matched. Statuses sent with an API key are unverified. */
        TicketStatusAcceptance: {
            /** @constant */
            accepted: true;
            ticket_ref: string;
            /** @enum {string} */
            status: "open" | "pending" | "resolved" | "closed";
            matched: {
                ticket_links: number;
                requests: string[];
                shares: string[];
            };
            /** @constant */
            verified: false;
            note: string;
        };
        /** @description A signed, offline-verifiable custody certificate of format `service-custody/v1`; check it with `verify-custody-certificate`. It holds no secret material. The members beyond those listed here are described by the verification tool. */
        CustodyCertificate: {
            /** @constant */
            format: "service-custody/v1";
            /** @enum {string} */
            subject_kind: "request" | "share";
            certificate_id: string;
            /** Format: date-time */
            issued_at: string;
            /** @description False while the request or share has not ended. */
            final: boolean;
            /** @description What destroying the credential deleted, and what it could not: its ciphertext is deleted from the service's table (`scope` `live_table`), while the table's point-in-time backups hold it, encrypted, until `backups.ciphertext_restorable_until`. */
            destruction: {
                destroyed: boolean;
                at: string | null;
                reason: string | null;
                /** @description The audit chain entry of the destruction. */
                seq: number | null;
                /** @constant */
                scope: "live_table";
                /** @description False when no credential was ever submitted, so the service never held its ciphertext. */
                ciphertext_stored: boolean;
                backups: {
                    /** @description Days of point-in-time recovery the service's table keeps; 0 where it keeps none. */
                    point_in_time_recovery_days: number;
                    /** @description Until when those backups can restore the deleted ciphertext: `at` plus the recovery days. Null when no backup holds it (nothing destroyed yet, nothing stored, or no backups). */
                    ciphertext_restorable_until: string | null;
                };
            } & {
                [key: string]: unknown;
            };
            signature: {
                alg: string;
                kid: string;
                value: string;
            };
        } & {
            [key: string]: unknown;
        };
        /** @description Every certificate signing key ever used (RFC 7517), the current one first; retired keys stay, marked `retired_at`. */
        JsonWebKeySet: {
            keys: ({
                /** @constant */
                kty: "OKP";
                /** @constant */
                crv: "Ed25519";
                x: string;
                kid: string;
                alg?: string;
                /** @constant */
                use?: "sig";
                /** Format: date-time */
                created_at?: string;
                /** Format: date-time */
                retired_at?: string;
            } & {
                [key: string]: unknown;
            })[];
        };
        /** @description What the service understood of an inbound post, and why it could not be used when it could not. It never says whether the ticket exists. */
        InboundAcceptance: {
            /** @constant */
            accepted: true;
            /** @constant */
            url: "webhook";
            ticket_id: string | null;
            /** @enum {string} */
            status: "open" | "pending" | "resolved" | "closed" | "unknown";
            status_received: string | null;
            problem: string | null;
        } | {
            /** @constant */
            accepted: true;
            /** @constant */
            url: "trigger";
            ticket_id: string | null;
            preset: string | null;
            problem: string | null;
        };
        /** @description Every error answer. A validation error adds `errors`, keyed by field, each with its messages. */
        Error: {
            message: string;
            code: string;
            errors?: {
                [key: string]: string[];
            };
        };
    };
    responses: never;
    parameters: {
        /** @description The same key and body within 24 hours replays the first answer (no body and `{}` are the same body); the same key with another body answers 422 `idempotency_key_reused`, and while the first call runs, 409 `conflict`. */
        IdempotencyKey: string;
    };
    requestBodies: never;
    headers: {
        /** @description Calls the key may make per minute. */
        "X-RateLimit-Limit": number;
        /** @description Calls left in the current minute, for the key and its organisation. */
        "X-RateLimit-Remaining": number;
        /** @description When the current window ends, in unix seconds. */
        "X-RateLimit-Reset": number;
        /** @description Seconds to wait before calling again. */
        "Retry-After": number;
        /** @description With `conflict` for a concurrent duplicate of an Idempotency-Key: seconds until the first call answers or its claim ends. Not sent with a 409 of another meaning. */
        "Retry-After-Duplicate": number;
        /** @description The address of the created resource: a request is read there with GET; a webhook subscription is deleted there with DELETE (it has no GET, which answers 405 with Allow). */
        Location: string;
        /** @description Present, `true`, when this is the stored answer to an earlier call with the same Idempotency-Key. */
        "Idempotency-Replayed": "true";
        /** @description The challenge (RFC 9110, RFC 6750): a bearer API key, with `error="invalid_token"` when the key sent was malformed, unknown, revoked or expired, and `error="invalid_request"` when the `Authorization` header held no single bearer key (two headers, or `Bearer` alone). */
        "WWW-Authenticate": string;
        /** @description The challenge (RFC 9110) of the integration's check: `SharedHeader realm="inbound"` for a shared header (its name is not said), or `Signature realm="inbound", header="<name>"` with the header the signature is read from (`X-Service-Signature`, or a helpdesk's own). */
        "WWW-Authenticate-Inbound": string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    ping: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The key’s organisation, name, scopes and client. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PingResult"];
                };
            };
            /** @description `unauthenticated`: The API key is missing, unknown, revoked or expired. */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "unauthenticated";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `forbidden`: The key lacks the scope, is scoped to another client, or is used from outside its IP allowlist. `plan_required`: The plan does not include the API. */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "forbidden" | "plan_required";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: The body is over the size limit (4 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "payload_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `validation_failed`: A query parameter the operation does not define: `errors` names it ("Unknown query parameter."). */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "validation_failed";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`: Too many calls: retry after the seconds in `Retry-After`. */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "rate_limited";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `request_header_fields_too_large`: The request line and header values together are over the size limit (10,240 bytes). */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "request_header_fields_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `error`: an unexpected failure; the body tells nothing of it. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: A brief failure and nothing was changed (or, with an Idempotency-Key, a retry changes nothing twice): retry after the seconds in `Retry-After`. */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "service_unavailable";
                    } & components["schemas"]["Error"];
                };
            };
        };
    };
    generate: {
        parameters: {
            query?: never;
            header?: {
                /** @description The same key and body within 24 hours replays the first answer (no body and `{}` are the same body); the same key with another body answers 422 `idempotency_key_reused`, and while the first call runs, 409 `conflict`. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /**
                     * @default password
                     * @enum {string}
                     */
                    type?: "password" | "passphrase";
                    /**
                     * @description Characters of a password. Within its bounds whatever the type; a passphrase ignores it.
                     * @default 20
                     */
                    length?: number;
                    /**
                     * @description At least one of lower, upper, digits and symbols must be on for a password.
                     * @default true
                     */
                    lower?: boolean;
                    /** @default true */
                    upper?: boolean;
                    /** @default true */
                    digits?: boolean;
                    /** @default false */
                    symbols?: boolean;
                };
            };
        };
        responses: {
            /** @description The credential, shown once. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GeneratedCredential"];
                };
            };
            /** @description `bad_request`: The body is not valid JSON. */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "bad_request";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `unauthenticated`: The API key is missing, unknown, revoked or expired. */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "unauthenticated";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `forbidden`: The key lacks the scope, is scoped to another client, or is used from outside its IP allowlist. `plan_required`: The plan does not include the API. */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "forbidden" | "plan_required";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `conflict`: The same Idempotency-Key is still being processed (a concurrent duplicate). */
            409: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-Duplicate"];
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "conflict";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: The body is over the size limit (4 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "payload_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `validation_failed`: Invalid body, query or header; `errors` lists the fields. A query parameter the operation does not define: `errors` names it ("Unknown query parameter."). `idempotency_key_reused`: The same Idempotency-Key was used with a different body. */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "validation_failed" | "idempotency_key_reused";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`: Too many calls: retry after the seconds in `Retry-After`. */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "rate_limited";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `request_header_fields_too_large`: The request line and header values together are over the size limit (10,240 bytes). */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "request_header_fields_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `error`: an unexpected failure; the body tells nothing of it. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: A brief failure and nothing was changed (or, with an Idempotency-Key, a retry changes nothing twice): retry after the seconds in `Retry-After`. */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "service_unavailable";
                    } & components["schemas"]["Error"];
                };
            };
        };
    };
    listRequests: {
        parameters: {
            query?: {
                status?: "pending" | "opened" | "submitted" | "completed" | "revoked" | "expired";
                client_id?: string;
                /** @description Only requests quoting this ticket reference. */
                ticket_ref?: string;
                limit?: number;
                /** @description The `next_cursor` of the previous page. */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of requests. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RequestList"];
                };
            };
            /** @description `unauthenticated`: The API key is missing, unknown, revoked or expired. */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "unauthenticated";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `forbidden`: The key lacks the scope, is scoped to another client, or is used from outside its IP allowlist. Also: `client_id` names another client than the key’s. `plan_required`: The plan does not include the API. */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "forbidden" | "plan_required";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: The body is over the size limit (4 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "payload_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `validation_failed`: Invalid body, query or header; `errors` lists the fields. A query parameter the operation does not define: `errors` names it ("Unknown query parameter."). */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "validation_failed";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`: Too many calls: retry after the seconds in `Retry-After`. */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "rate_limited";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `request_header_fields_too_large`: The request line and header values together are over the size limit (10,240 bytes). */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "request_header_fields_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `error`: an unexpected failure; the body tells nothing of it. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: A brief failure and nothing was changed (or, with an Idempotency-Key, a retry changes nothing twice): retry after the seconds in `Retry-After`. */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "service_unavailable";
                    } & components["schemas"]["Error"];
                };
            };
        };
    };
    createRequest: {
        parameters: {
            query?: never;
            header?: {
                /** @description The same key and body within 24 hours replays the first answer (no body and `{}` are the same body); the same key with another body answers 422 `idempotency_key_reused`, and while the first call runs, 409 `conflict`. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The person handing over the credential. Trimmed: spaces around it are removed before its length is counted. */
                    subject_name: string;
                    /** @description Needed for emailed one-time codes and for delivery by email. */
                    subject_email?: string | null;
                    /** @description Needed for delivery by SMS. E.164 preferred; a national number is read in the platform default country (UK). Stored and returned as E.164. */
                    subject_phone?: string | null;
                    /** @description Required unless the preset supplies one. Trimmed before its length is counted. */
                    justification?: string;
                    /** @description Required unless the preset supplies them. Each needs an identity key. */
                    recipients?: string[];
                    /** @description The member recorded as requester; defaults to the first recipient; always a recipient. */
                    requester?: string | null;
                    /** @description Members of these teams are added as recipients. With teams and no `recipients`, `requester` is required. Listed members, team members and the requester together make at most 64 recipients (422 on `teams`, or on `recipients` without teams): the subject's browser seals the credential to each. */
                    teams?: string[];
                    client_id?: string | null;
                    /** @description A preset slug (Team plan and above): its saved defaults apply first, and the other fields override them. */
                    preset?: string | null;
                    template_id?: string | null;
                    /** @description Closing the ticket can destroy the credential, per policy. Trimmed, as the path and the filter read it; blank is refused. */
                    ticket_ref?: string | null;
                    /** @description An http or https URL, kept and answered normalised: the host in punycode, spaces and the characters RFC 3986 does not allow escaped. A `%` that begins no escape of two hex digits is refused. */
                    ticket_url?: string | null;
                    ticket_integration_id?: string | null;
                    ticket_external_id?: string | null;
                    /** @description Must be one of the policy’s options; defaults to the policy default. */
                    ttl_minutes?: number;
                    /**
                     * @description At least the policy minimum; defaults to the policy default.
                     * @enum {string}
                     */
                    verification_mode?: "none" | "challenge" | "email_otp" | "either" | "both";
                    /** @description Default false. */
                    allow_attachments?: boolean;
                    /** @description `none` (default): the caller delivers the returned link; `email` or `sms`: the service sends it; `ticket_reply`: posted as a customer-visible reply on the linked ticket (needs a reply-capable ticketing integration). */
                    delivery?: {
                        /** @enum {string} */
                        method: "none" | "email" | "sms" | "ticket_reply";
                    } | null;
                };
            };
        };
        responses: {
            /** @description The request, its link (once) and the commitment. */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    Location: components["headers"]["Location"];
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RequestCreationResult"];
                };
            };
            /** @description `bad_request`: The body is not valid JSON. */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "bad_request";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `unauthenticated`: The API key is missing, unknown, revoked or expired. */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "unauthenticated";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `forbidden`: The key lacks the scope, is scoped to another client, or is used from outside its IP allowlist. `plan_required`: The plan does not include the API. */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "forbidden" | "plan_required";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `conflict`: The same Idempotency-Key is still being processed (a concurrent duplicate). */
            409: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-Duplicate"];
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "conflict";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: The body is over the size limit (4 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "payload_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `validation_failed`: Invalid body, query or header; `errors` lists the fields. A query parameter the operation does not define: `errors` names it ("Unknown query parameter."). `idempotency_key_reused`: The same Idempotency-Key was used with a different body. */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "validation_failed" | "idempotency_key_reused";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`: Too many calls: retry after the seconds in `Retry-After`. */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "rate_limited";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `request_header_fields_too_large`: The request line and header values together are over the size limit (10,240 bytes). */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "request_header_fields_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `error`: an unexpected failure; the body tells nothing of it. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: A brief failure and nothing was changed (or, with an Idempotency-Key, a retry changes nothing twice): retry after the seconds in `Retry-After`. */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "service_unavailable";
                    } & components["schemas"]["Error"];
                };
            };
        };
    };
    getRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The request’s id, a ULID. An id that cannot exist answers 404. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Request"];
                };
            };
            /** @description `unauthenticated`: The API key is missing, unknown, revoked or expired. */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "unauthenticated";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `forbidden`: The key lacks the scope, is scoped to another client, or is used from outside its IP allowlist. `plan_required`: The plan does not include the API. */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "forbidden" | "plan_required";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: No such record within the key’s scope. */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "not_found";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: The body is over the size limit (4 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "payload_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `validation_failed`: A query parameter the operation does not define: `errors` names it ("Unknown query parameter."). */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "validation_failed";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`: Too many calls: retry after the seconds in `Retry-After`. */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "rate_limited";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `request_header_fields_too_large`: The request line and header values together are over the size limit (10,240 bytes). */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "request_header_fields_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `error`: an unexpected failure; the body tells nothing of it. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: A brief failure and nothing was changed (or, with an Idempotency-Key, a retry changes nothing twice): retry after the seconds in `Retry-After`. */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "service_unavailable";
                    } & components["schemas"]["Error"];
                };
            };
        };
    };
    revokeRequest: {
        parameters: {
            query?: never;
            header?: {
                /** @description The same key and body within 24 hours replays the first answer (no body and `{}` are the same body); the same key with another body answers 422 `idempotency_key_reused`, and while the first call runs, 409 `conflict`. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description The request’s id, a ULID. An id that cannot exist answers 404. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The revoked request. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Request"];
                };
            };
            /** @description `bad_request`: The body is not valid JSON. */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "bad_request";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `unauthenticated`: The API key is missing, unknown, revoked or expired. */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "unauthenticated";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `forbidden`: The key lacks the scope, is scoped to another client, or is used from outside its IP allowlist. `plan_required`: The plan does not include the API. */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "forbidden" | "plan_required";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: No such record within the key’s scope. */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "not_found";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `conflict`: The same Idempotency-Key is still being processed (a concurrent duplicate). `illegal_transition`: The request is not `pending` or `opened`. */
            409: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-Duplicate"];
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "conflict" | "illegal_transition";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: The body is over the size limit (4 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "payload_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `validation_failed`: Invalid body, query or header; `errors` lists the fields. A query parameter the operation does not define: `errors` names it ("Unknown query parameter."). `idempotency_key_reused`: The same Idempotency-Key was used with a different body. */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "validation_failed" | "idempotency_key_reused";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`: Too many calls: retry after the seconds in `Retry-After`. */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "rate_limited";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `request_header_fields_too_large`: The request line and header values together are over the size limit (10,240 bytes). */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "request_header_fields_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `error`: an unexpected failure; the body tells nothing of it. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: A brief failure and nothing was changed (or, with an Idempotency-Key, a retry changes nothing twice): retry after the seconds in `Retry-After`. */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "service_unavailable";
                    } & components["schemas"]["Error"];
                };
            };
        };
    };
    completeRequest: {
        parameters: {
            query?: never;
            header?: {
                /** @description The same key and body within 24 hours replays the first answer (no body and `{}` are the same body); the same key with another body answers 422 `idempotency_key_reused`, and while the first call runs, 409 `conflict`. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description The request’s id, a ULID. An id that cannot exist answers 404. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The completed request. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Request"];
                };
            };
            /** @description `bad_request`: The body is not valid JSON. */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "bad_request";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `unauthenticated`: The API key is missing, unknown, revoked or expired. */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "unauthenticated";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `forbidden`: The key lacks the scope, is scoped to another client, or is used from outside its IP allowlist. `plan_required`: The plan does not include the API. */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "forbidden" | "plan_required";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: No such record within the key’s scope. */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "not_found";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `conflict`: The same Idempotency-Key is still being processed (a concurrent duplicate). `illegal_transition`: The request is not `submitted`. */
            409: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-Duplicate"];
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "conflict" | "illegal_transition";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: The body is over the size limit (4 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "payload_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `validation_failed`: Invalid body, query or header; `errors` lists the fields. A query parameter the operation does not define: `errors` names it ("Unknown query parameter."). `idempotency_key_reused`: The same Idempotency-Key was used with a different body. */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "validation_failed" | "idempotency_key_reused";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`: Too many calls: retry after the seconds in `Retry-After`. */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "rate_limited";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `request_header_fields_too_large`: The request line and header values together are over the size limit (10,240 bytes). */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "request_header_fields_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `error`: an unexpected failure; the body tells nothing of it. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: A brief failure and nothing was changed (or, with an Idempotency-Key, a retry changes nothing twice): retry after the seconds in `Retry-After`. */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "service_unavailable";
                    } & components["schemas"]["Error"];
                };
            };
        };
    };
    markTicketStatus: {
        parameters: {
            query?: never;
            header?: {
                /** @description The same key and body within 24 hours replays the first answer (no body and `{}` are the same body); the same key with another body answers 422 `idempotency_key_reused`, and while the first call runs, 409 `conflict`. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description The ticket reference exactly as entered on the request, or the external id of a linked ticket. */
                ref: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    status: "open" | "pending" | "resolved" | "closed";
                    /** @description Only match tickets linked through this integration. */
                    integration_id?: string | null;
                };
            };
        };
        responses: {
            /** @description What the status matched. */
            202: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TicketStatusAcceptance"];
                };
            };
            /** @description `bad_request`: The body is not valid JSON. */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "bad_request";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `unauthenticated`: The API key is missing, unknown, revoked or expired. */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "unauthenticated";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `forbidden`: The key lacks the scope, is scoped to another client, or is used from outside its IP allowlist. `plan_required`: The plan does not include the API. */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "forbidden" | "plan_required";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `conflict`: The same Idempotency-Key is still being processed (a concurrent duplicate). */
            409: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-Duplicate"];
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "conflict";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: The body is over the size limit (4 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "payload_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `validation_failed`: Invalid body, query or header; `errors` lists the fields. A query parameter the operation does not define: `errors` names it ("Unknown query parameter."). `idempotency_key_reused`: The same Idempotency-Key was used with a different body. */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "validation_failed" | "idempotency_key_reused";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`: Too many calls: retry after the seconds in `Retry-After`. */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "rate_limited";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `request_header_fields_too_large`: The request line and header values together are over the size limit (10,240 bytes). */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "request_header_fields_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `error`: an unexpected failure; the body tells nothing of it. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: A brief failure and nothing was changed (or, with an Idempotency-Key, a retry changes nothing twice): retry after the seconds in `Retry-After`. */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "service_unavailable";
                    } & components["schemas"]["Error"];
                };
            };
        };
    };
    requestCertificate: {
        parameters: {
            query?: {
                /** @description `json` (the signed document) or `pdf` (the same rendered). */
                format?: "json" | "pdf";
            };
            header?: never;
            path: {
                /** @description The request’s id, a ULID. An id that cannot exist answers 404. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The certificate. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CustodyCertificate"];
                    "application/pdf": string;
                };
            };
            /** @description `unauthenticated`: The API key is missing, unknown, revoked or expired. */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "unauthenticated";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `forbidden`: The key lacks the scope, is scoped to another client, or is used from outside its IP allowlist. `plan_required`: The plan does not include the API. */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "forbidden" | "plan_required";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: No such record within the key’s scope. */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "not_found";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: The body is over the size limit (4 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "payload_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `validation_failed`: Invalid body, query or header; `errors` lists the fields. A query parameter the operation does not define: `errors` names it ("Unknown query parameter."). */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "validation_failed";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`: Too many calls: retry after the seconds in `Retry-After`. */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "rate_limited";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `request_header_fields_too_large`: The request line and header values together are over the size limit (10,240 bytes). */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "request_header_fields_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `error`: an unexpected failure; the body tells nothing of it. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: A brief failure and nothing was changed (or, with an Idempotency-Key, a retry changes nothing twice): retry after the seconds in `Retry-After`. */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "service_unavailable";
                    } & components["schemas"]["Error"];
                };
            };
        };
    };
    shareCertificate: {
        parameters: {
            query?: {
                /** @description `json` (the signed document) or `pdf` (the same rendered). */
                format?: "json" | "pdf";
            };
            header?: never;
            path: {
                /** @description The share’s id, a ULID. An id that cannot exist answers 404. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The certificate. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CustodyCertificate"];
                    "application/pdf": string;
                };
            };
            /** @description `unauthenticated`: The API key is missing, unknown, revoked or expired. */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "unauthenticated";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `forbidden`: The key lacks the scope, is scoped to another client, or is used from outside its IP allowlist. `plan_required`: The plan does not include the API. */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "forbidden" | "plan_required";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: No such record within the key’s scope. */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "not_found";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: The body is over the size limit (4 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "payload_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `validation_failed`: Invalid body, query or header; `errors` lists the fields. A query parameter the operation does not define: `errors` names it ("Unknown query parameter."). */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "validation_failed";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`: Too many calls: retry after the seconds in `Retry-After`. */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "rate_limited";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `request_header_fields_too_large`: The request line and header values together are over the size limit (10,240 bytes). */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "request_header_fields_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `error`: an unexpected failure; the body tells nothing of it. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: A brief failure and nothing was changed (or, with an Idempotency-Key, a retry changes nothing twice): retry after the seconds in `Retry-After`. */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "service_unavailable";
                    } & components["schemas"]["Error"];
                };
            };
        };
    };
    listEvents: {
        parameters: {
            query?: {
                /** @description `0` starts from the oldest retained event; otherwise the previous answer’s `next_cursor`. */
                since?: string;
                /** @description Comma-separated event types to include: request.created, request.opened, request.submitted, request.revealed, request.completed, credential.rotation_recommended, request.expired, request.revoked, request.reported, member.disabled, org_recovery.used, request.relinked, request.unrecoverable, ping. */
                types?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of events. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventList"];
                };
            };
            /** @description `unauthenticated`: The API key is missing, unknown, revoked or expired. */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "unauthenticated";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `forbidden`: The key lacks the scope, is scoped to another client, or is used from outside its IP allowlist. `plan_required`: The plan does not include the API. */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "forbidden" | "plan_required";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: The body is over the size limit (4 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "payload_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `validation_failed`: Invalid body, query or header; `errors` lists the fields. A query parameter the operation does not define: `errors` names it ("Unknown query parameter."). */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "validation_failed";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`: Too many calls: retry after the seconds in `Retry-After`. */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "rate_limited";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `request_header_fields_too_large`: The request line and header values together are over the size limit (10,240 bytes). */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "request_header_fields_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `error`: an unexpected failure; the body tells nothing of it. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: A brief failure and nothing was changed (or, with an Idempotency-Key, a retry changes nothing twice): retry after the seconds in `Retry-After`. */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "service_unavailable";
                    } & components["schemas"]["Error"];
                };
            };
        };
    };
    listWebhooks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The subscriptions. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookList"];
                };
            };
            /** @description `unauthenticated`: The API key is missing, unknown, revoked or expired. */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "unauthenticated";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `forbidden`: The key lacks the scope, is scoped to another client, or is used from outside its IP allowlist. `plan_required`: The plan does not include the API. */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "forbidden" | "plan_required";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: The body is over the size limit (4 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "payload_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `validation_failed`: A query parameter the operation does not define: `errors` names it ("Unknown query parameter."). */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "validation_failed";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`: Too many calls: retry after the seconds in `Retry-After`. */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "rate_limited";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `request_header_fields_too_large`: The request line and header values together are over the size limit (10,240 bytes). */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "request_header_fields_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `error`: an unexpected failure; the body tells nothing of it. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: A brief failure and nothing was changed (or, with an Idempotency-Key, a retry changes nothing twice): retry after the seconds in `Retry-After`. */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "service_unavailable";
                    } & components["schemas"]["Error"];
                };
            };
        };
    };
    createWebhook: {
        parameters: {
            query?: never;
            header?: {
                /** @description The same key and body within 24 hours replays the first answer (no body and `{}` are the same body); the same key with another body answers 422 `idempotency_key_reused`, and while the first call runs, 409 `conflict`. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: uri
                     * @description https only, on a public host.
                     */
                    url: string;
                    /** @description Subscribable event types; `ping` is sent only by a test action, the app’s Send test ping or the operator CLI’s `webhook-ping`, to the one subscription it tests; it cannot be subscribed to. */
                    events: ("request.created" | "request.opened" | "request.submitted" | "request.revealed" | "request.completed" | "credential.rotation_recommended" | "request.expired" | "request.revoked" | "request.reported" | "member.disabled" | "org_recovery.used" | "request.relinked" | "request.unrecoverable")[];
                    description?: string | null;
                };
            };
        };
        responses: {
            /** @description The subscription with its signing secret. */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    Location: components["headers"]["Location"];
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookCreationResult"];
                };
            };
            /** @description `bad_request`: The body is not valid JSON. */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "bad_request";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `unauthenticated`: The API key is missing, unknown, revoked or expired. */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "unauthenticated";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `forbidden`: The key lacks the scope, is scoped to another client, or is used from outside its IP allowlist. `plan_required`: The plan does not include the API. */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "forbidden" | "plan_required";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `conflict`: The same Idempotency-Key is still being processed (a concurrent duplicate). */
            409: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-Duplicate"];
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "conflict";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: The body is over the size limit (4 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "payload_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `validation_failed`: Invalid body, query or header; `errors` lists the fields. A query parameter the operation does not define: `errors` names it ("Unknown query parameter."). `idempotency_key_reused`: The same Idempotency-Key was used with a different body. */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "validation_failed" | "idempotency_key_reused";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`: Too many calls: retry after the seconds in `Retry-After`. */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "rate_limited";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `request_header_fields_too_large`: The request line and header values together are over the size limit (10,240 bytes). */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "request_header_fields_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `error`: an unexpected failure; the body tells nothing of it. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: A brief failure and nothing was changed (or, with an Idempotency-Key, a retry changes nothing twice): retry after the seconds in `Retry-After`. */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "service_unavailable";
                    } & components["schemas"]["Error"];
                };
            };
        };
    };
    deleteWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The webhook’s id, a ULID. An id that cannot exist answers 404. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted; no body. */
            204: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `unauthenticated`: The API key is missing, unknown, revoked or expired. */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "unauthenticated";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `forbidden`: The key lacks the scope, is scoped to another client, or is used from outside its IP allowlist. `plan_required`: The plan does not include the API. */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "forbidden" | "plan_required";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: No such record within the key’s scope. */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "not_found";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: The body is over the size limit (4 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "payload_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `validation_failed`: A query parameter the operation does not define: `errors` names it ("Unknown query parameter."). */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "validation_failed";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`: Too many calls: retry after the seconds in `Retry-After`. */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "rate_limited";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `request_header_fields_too_large`: The request line and header values together are over the size limit (10,240 bytes). */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "request_header_fields_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `error`: an unexpected failure; the body tells nothing of it. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: A brief failure and nothing was changed (or, with an Idempotency-Key, a retry changes nothing twice): retry after the seconds in `Retry-After`. */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "service_unavailable";
                    } & components["schemas"]["Error"];
                };
            };
        };
    };
    relinkRequest: {
        parameters: {
            query?: never;
            header?: {
                /** @description The same key and body within 24 hours replays the first answer (no body and `{}` are the same body); the same key with another body answers 422 `idempotency_key_reused`, and while the first call runs, 409 `conflict`. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description The request’s id, a ULID. An id that cannot exist answers 404. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request and its new link (once). */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RelinkResult"];
                };
            };
            /** @description `bad_request`: The body is not valid JSON. */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "bad_request";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `unauthenticated`: The API key is missing, unknown, revoked or expired. */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "unauthenticated";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `forbidden`: The key lacks the scope, is scoped to another client, or is used from outside its IP allowlist. `plan_required`: The plan does not include the API. */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "forbidden" | "plan_required";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: No such record within the key’s scope. */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "not_found";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `conflict`: The same Idempotency-Key is still being processed (a concurrent duplicate). `illegal_transition`: The request was submitted, completed, or expired after a submission. */
            409: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-Duplicate"];
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "conflict" | "illegal_transition";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: The body is over the size limit (4 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "payload_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `validation_failed`: Invalid body, query or header; `errors` lists the fields. No recipient can receive a credential any more (`errors.recipients`). A query parameter the operation does not define: `errors` names it ("Unknown query parameter."). `idempotency_key_reused`: The same Idempotency-Key was used with a different body. */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "validation_failed" | "idempotency_key_reused";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`: Too many calls: retry after the seconds in `Retry-After`. */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "rate_limited";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `request_header_fields_too_large`: The request line and header values together are over the size limit (10,240 bytes). */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "request_header_fields_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `error`: an unexpected failure; the body tells nothing of it. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: A brief failure and nothing was changed (or, with an Idempotency-Key, a retry changes nothing twice): retry after the seconds in `Retry-After`. */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "service_unavailable";
                    } & components["schemas"]["Error"];
                };
            };
        };
    };
    openapi: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description This document. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            /** @description `payload_too_large`: The body is over the size limit (4 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "payload_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `validation_failed`: A query parameter the operation does not define: `errors` names it ("Unknown query parameter."). */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "validation_failed";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `request_header_fields_too_large`: The request line and header values together are over the size limit (10,240 bytes). */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "request_header_fields_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `error`: an unexpected failure; the body tells nothing of it. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    jwks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The key set. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/jwk-set+json": components["schemas"]["JsonWebKeySet"];
                };
            };
            /** @description `payload_too_large`: The body is over the size limit (4 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "payload_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `validation_failed`: A query parameter the operation does not define: `errors` names it ("Unknown query parameter."). */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "validation_failed";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `request_header_fields_too_large`: The request line and header values together are over the size limit (10,240 bytes). */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "request_header_fields_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `error`: an unexpected failure; the body tells nothing of it. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: A brief failure and nothing was changed (or, with an Idempotency-Key, a retry changes nothing twice): retry after the seconds in `Retry-After`. */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "service_unavailable";
                    } & components["schemas"]["Error"];
                };
            };
        };
    };
    inboundTicketStatus: {
        parameters: {
            query?: never;
            header?: {
                /** @description The same key and body within 24 hours replays the first answer (no body and `{}` are the same body); the same key with another body answers 422 `idempotency_key_reused`, and while the first call runs, 409 `conflict`. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description The secret part of the URL the integration shows. A wrong or rotated URL answers 404. */
                secret: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description The ticket reference, exactly as on the request (same capitals and prefix). */
                    ticket_id?: string | number;
                    /** @description The ticket’s status in the helpdesk’s words. */
                    status?: string | number;
                } & {
                    [key: string]: unknown;
                };
                "application/x-www-form-urlencoded": {
                    /** @description The ticket reference, exactly as on the request (same capitals and prefix). */
                    ticket_id?: string | number;
                    /** @description The ticket’s status in the helpdesk’s words. */
                    status?: string | number;
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description What the service understood of the post. */
            202: {
                headers: {
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InboundAcceptance"];
                };
            };
            /** @description `unauthenticated`: The configured shared header or signature is missing or does not match. */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate-Inbound"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "unauthenticated";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: A wrong or rotated URL. */
            404: {
                headers: {
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "not_found";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `conflict`: The integration is disabled. Also: the same Idempotency-Key is still being processed (a concurrent duplicate). */
            409: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After-Duplicate"];
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "conflict";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: The body is over the size limit (4 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "payload_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `validation_failed`: An `Idempotency-Key` longer than 200 characters (`errors` names the header). `idempotency_key_reused`: The same Idempotency-Key was used with a different body. */
            422: {
                headers: {
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "validation_failed" | "idempotency_key_reused";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`: Too many posts: retry after the seconds in `Retry-After`. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "rate_limited";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `request_header_fields_too_large`: The request line and header values together are over the size limit (10,240 bytes). */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "request_header_fields_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `error`: an unexpected failure; the body tells nothing of it. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: A brief failure and nothing was changed (or, with an Idempotency-Key, a retry changes nothing twice): retry after the seconds in `Retry-After`. */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "service_unavailable";
                    } & components["schemas"]["Error"];
                };
            };
        };
    };
    inboundTicketTrigger: {
        parameters: {
            query?: never;
            header?: {
                /** @description The same key and body within 24 hours replays the first answer (no body and `{}` are the same body); the same key with another body answers 422 `idempotency_key_reused`, and while the first call runs, 409 `conflict`. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description The secret part of the URL the integration shows. A wrong or rotated URL answers 404. */
                secret: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description The ticket reference, exactly as on the request (same capitals and prefix). */
                    ticket_id?: string | number;
                    subject?: {
                        /** @description The person who will send the credential. Required. */
                        name?: string;
                        /** @description Needed when the preset sends an emailed code or emails the link. */
                        email?: string;
                        /** @description Needed when the preset texts the link or a code. */
                        phone?: string | number;
                    };
                    /** @description A preset slug; without it the client’s default preset, then the organisation’s, then the policy defaults. */
                    preset?: string;
                    /** @description The technician who owns the request, when the preset takes the requester from the ticket. */
                    requester_email?: string;
                } & {
                    [key: string]: unknown;
                };
                "application/x-www-form-urlencoded": {
                    /** @description The ticket reference, exactly as on the request (same capitals and prefix). */
                    ticket_id?: string | number;
                    subject?: {
                        /** @description The person who will send the credential. Required. */
                        name?: string;
                        /** @description Needed when the preset sends an emailed code or emails the link. */
                        email?: string;
                        /** @description Needed when the preset texts the link or a code. */
                        phone?: string | number;
                    };
                    /** @description A preset slug; without it the client’s default preset, then the organisation’s, then the policy defaults. */
                    preset?: string;
                    /** @description The technician who owns the request, when the preset takes the requester from the ticket. */
                    requester_email?: string;
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description What the service understood of the post. */
            202: {
                headers: {
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InboundAcceptance"];
                };
            };
            /** @description `unauthenticated`: The configured shared header or signature is missing or does not match. */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate-Inbound"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "unauthenticated";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: A wrong or rotated URL. */
            404: {
                headers: {
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "not_found";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `conflict`: The integration is disabled. Also: the same Idempotency-Key is still being processed (a concurrent duplicate). */
            409: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After-Duplicate"];
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "conflict";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: The body is over the size limit (4 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "payload_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `validation_failed`: An `Idempotency-Key` longer than 200 characters (`errors` names the header). `idempotency_key_reused`: The same Idempotency-Key was used with a different body. */
            422: {
                headers: {
                    "Idempotency-Replayed": components["headers"]["Idempotency-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "validation_failed" | "idempotency_key_reused";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`: Too many posts: retry after the seconds in `Retry-After`. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "rate_limited";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `request_header_fields_too_large`: The request line and header values together are over the size limit (10,240 bytes). */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "request_header_fields_too_large";
                    } & components["schemas"]["Error"];
                };
            };
            /** @description `error`: an unexpected failure; the body tells nothing of it. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: A brief failure and nothing was changed (or, with an Idempotency-Key, a retry changes nothing twice): retry after the seconds in `Retry-After`. */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code?: "service_unavailable";
                    } & components["schemas"]["Error"];
                };
            };
        };
    };
    eventDelivery: {
        parameters: {
            query?: never;
            header: {
                "User-Agent": "CredentialHandoff-Webhooks/1";
                /** @description A ULID, one per delivery, kept across automatic retries; new on a manual redelivery from the app. */
                "webhook-id": string;
                /** @description Unix seconds. */
                "webhook-timestamp": string;
                /** @description `v1,<base64>`; several space-separated while a secret is rotated: accept if any one matches. */
                "webhook-signature": string;
                /**
                 * @deprecated
                 * @description Legacy, sent alongside: `t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`, keyed with the whole secret string as shown (`whsec_...`, prefix included; `webhook-signature` uses its base64-decoded key). While a secret is rotated it is signed with the new secret only.
                 */
                "X-Service-Signature": string;
                /** @description The event type. */
                "X-Service-Event": "request.created" | "request.opened" | "request.submitted" | "request.revealed" | "request.completed" | "credential.rotation_recommended" | "request.expired" | "request.revoked" | "request.reported" | "member.disabled" | "org_recovery.used" | "request.relinked" | "request.unrecoverable" | "ping";
                /** @description The delivery’s id, a ULID. */
                "X-Service-Delivery": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["Event"];
            };
        };
        responses: {
            /** @description Received. Any other answer, or none within 10 seconds, is retried. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}

/** Each operation of the API by its operationId: its method and path, whether it takes an
 * Idempotency-Key, how it is authenticated (an API key, a webhook signature or nothing) and
 * whether it answers Server-Sent Events. */
export declare const routes: {
    readonly listLocations: {
        readonly method: "GET";
        readonly path: "/v1/locations";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly getLocation: {
        readonly method: "GET";
        readonly path: "/v1/locations/{id}";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly putLocation: {
        readonly method: "PUT";
        readonly path: "/v1/locations/{id}";
        readonly idempotencyKey: true;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly getLocationStock: {
        readonly method: "GET";
        readonly path: "/v1/locations/{id}/stock";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly listSKUs: {
        readonly method: "GET";
        readonly path: "/v1/stock";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly getStock: {
        readonly method: "GET";
        readonly path: "/v1/stock/{sku}";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly setStock: {
        readonly method: "PUT";
        readonly path: "/v1/stock/{sku}/{location}";
        readonly idempotencyKey: true;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly adjustStock: {
        readonly method: "POST";
        readonly path: "/v1/stock/{sku}/{location}/adjust";
        readonly idempotencyKey: true;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly listReservations: {
        readonly method: "GET";
        readonly path: "/v1/reservations";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly reserve: {
        readonly method: "POST";
        readonly path: "/v1/reservations";
        readonly idempotencyKey: true;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly getReservation: {
        readonly method: "GET";
        readonly path: "/v1/reservations/{id}";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly releaseReservation: {
        readonly method: "DELETE";
        readonly path: "/v1/reservations/{id}";
        readonly idempotencyKey: true;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly updateReservation: {
        readonly method: "PATCH";
        readonly path: "/v1/reservations/{id}";
        readonly idempotencyKey: true;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly confirmReservation: {
        readonly method: "POST";
        readonly path: "/v1/reservations/{id}/confirm";
        readonly idempotencyKey: true;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly listOrders: {
        readonly method: "GET";
        readonly path: "/v1/orders";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly checkout: {
        readonly method: "POST";
        readonly path: "/v1/orders";
        readonly idempotencyKey: true;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly getOrder: {
        readonly method: "GET";
        readonly path: "/v1/orders/{id}";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly updateOrder: {
        readonly method: "PATCH";
        readonly path: "/v1/orders/{id}";
        readonly idempotencyKey: true;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly cancelOrder: {
        readonly method: "POST";
        readonly path: "/v1/orders/{id}/cancel";
        readonly idempotencyKey: true;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly fulfillOrder: {
        readonly method: "POST";
        readonly path: "/v1/orders/{id}/fulfill";
        readonly idempotencyKey: true;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly listShipments: {
        readonly method: "GET";
        readonly path: "/v1/orders/{id}/shipments";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly shipOrder: {
        readonly method: "POST";
        readonly path: "/v1/orders/{id}/shipments";
        readonly idempotencyKey: true;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly listShows: {
        readonly method: "GET";
        readonly path: "/v1/shows";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly getShow: {
        readonly method: "GET";
        readonly path: "/v1/shows/{id}";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly putShow: {
        readonly method: "PUT";
        readonly path: "/v1/shows/{id}";
        readonly idempotencyKey: true;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly listSeats: {
        readonly method: "GET";
        readonly path: "/v1/shows/{id}/seats";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly listSeatHistory: {
        readonly method: "GET";
        readonly path: "/v1/shows/{id}/history";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly listShowHolds: {
        readonly method: "GET";
        readonly path: "/v1/shows/{id}/holds";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly holdSeats: {
        readonly method: "POST";
        readonly path: "/v1/shows/{id}/holds";
        readonly idempotencyKey: true;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly listShowBookings: {
        readonly method: "GET";
        readonly path: "/v1/shows/{id}/bookings";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly listHolds: {
        readonly method: "GET";
        readonly path: "/v1/holds";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly getHold: {
        readonly method: "GET";
        readonly path: "/v1/holds/{id}";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly releaseHold: {
        readonly method: "DELETE";
        readonly path: "/v1/holds/{id}";
        readonly idempotencyKey: true;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly updateHold: {
        readonly method: "PATCH";
        readonly path: "/v1/holds/{id}";
        readonly idempotencyKey: true;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly extendHold: {
        readonly method: "POST";
        readonly path: "/v1/holds/{id}/extend";
        readonly idempotencyKey: true;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly confirmHold: {
        readonly method: "POST";
        readonly path: "/v1/holds/{id}/confirm";
        readonly idempotencyKey: true;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly listBookings: {
        readonly method: "GET";
        readonly path: "/v1/bookings";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly getBooking: {
        readonly method: "GET";
        readonly path: "/v1/bookings/{id}";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly updateBooking: {
        readonly method: "PATCH";
        readonly path: "/v1/bookings/{id}";
        readonly idempotencyKey: true;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly cancelBooking: {
        readonly method: "POST";
        readonly path: "/v1/bookings/{id}/cancel";
        readonly idempotencyKey: true;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly listRooms: {
        readonly method: "GET";
        readonly path: "/v1/rooms";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly createRoom: {
        readonly method: "POST";
        readonly path: "/v1/rooms";
        readonly idempotencyKey: true;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly getRoom: {
        readonly method: "GET";
        readonly path: "/v1/rooms/{id}";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly updateRoom: {
        readonly method: "PATCH";
        readonly path: "/v1/rooms/{id}";
        readonly idempotencyKey: true;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly joinRoom: {
        readonly method: "POST";
        readonly path: "/v1/rooms/{id}/visitors";
        readonly idempotencyKey: true;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly getRoomTicket: {
        readonly method: "GET";
        readonly path: "/v1/rooms/{id}/visitors/{visitor}";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly leaveRoom: {
        readonly method: "POST";
        readonly path: "/v1/rooms/{id}/visitors/{visitor}/leave";
        readonly idempotencyKey: true;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly streamRoomTicket: {
        readonly method: "GET";
        readonly path: "/v1/rooms/{id}/visitors/{visitor}/stream";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: true;
    };
    readonly listPayments: {
        readonly method: "GET";
        readonly path: "/v1/payments";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly createPayment: {
        readonly method: "POST";
        readonly path: "/v1/payments";
        readonly idempotencyKey: true;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly getPayment: {
        readonly method: "GET";
        readonly path: "/v1/payments/{id}";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly updatePayment: {
        readonly method: "PATCH";
        readonly path: "/v1/payments/{id}";
        readonly idempotencyKey: true;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly getPaymentHistory: {
        readonly method: "GET";
        readonly path: "/v1/payments/{id}/history";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly cancelPayment: {
        readonly method: "POST";
        readonly path: "/v1/payments/{id}/cancel";
        readonly idempotencyKey: true;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly applyPaymentOutcome: {
        readonly method: "POST";
        readonly path: "/v1/payments/{id}/outcomes";
        readonly idempotencyKey: true;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly paymentWebhook: {
        readonly method: "POST";
        readonly path: "/v1/payments/webhook";
        readonly idempotencyKey: true;
        readonly auth: "webhookSignature";
        readonly stream: false;
    };
    readonly listMovements: {
        readonly method: "GET";
        readonly path: "/v1/movements";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly listKeys: {
        readonly method: "GET";
        readonly path: "/v1/keys";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly createKey: {
        readonly method: "POST";
        readonly path: "/v1/keys";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly revokeKey: {
        readonly method: "DELETE";
        readonly path: "/v1/keys/{id}";
        readonly idempotencyKey: true;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly healthz: {
        readonly method: "GET";
        readonly path: "/healthz";
        readonly idempotencyKey: false;
        readonly auth: "none";
        readonly stream: false;
    };
    readonly readyz: {
        readonly method: "GET";
        readonly path: "/readyz";
        readonly idempotencyKey: false;
        readonly auth: "none";
        readonly stream: false;
    };
    readonly metrics: {
        readonly method: "GET";
        readonly path: "/metrics";
        readonly idempotencyKey: false;
        readonly auth: "none";
        readonly stream: false;
    };
    readonly openapi: {
        readonly method: "GET";
        readonly path: "/openapi.json";
        readonly idempotencyKey: false;
        readonly auth: "none";
        readonly stream: false;
    };
    readonly listEvents: {
        readonly method: "GET";
        readonly path: "/v1/events";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly streamEvents: {
        readonly method: "GET";
        readonly path: "/v1/events/stream";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: true;
    };
    readonly listLocks: {
        readonly method: "GET";
        readonly path: "/v1/locks";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly listWebhookEndpoints: {
        readonly method: "GET";
        readonly path: "/v1/webhook-endpoints";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly createWebhookEndpoint: {
        readonly method: "POST";
        readonly path: "/v1/webhook-endpoints";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly getWebhookEndpoint: {
        readonly method: "GET";
        readonly path: "/v1/webhook-endpoints/{id}";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly deleteWebhookEndpoint: {
        readonly method: "DELETE";
        readonly path: "/v1/webhook-endpoints/{id}";
        readonly idempotencyKey: true;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly updateWebhookEndpoint: {
        readonly method: "PATCH";
        readonly path: "/v1/webhook-endpoints/{id}";
        readonly idempotencyKey: true;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly rotateWebhookSecret: {
        readonly method: "POST";
        readonly path: "/v1/webhook-endpoints/{id}/rotate-secret";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly listWebhookDeliveries: {
        readonly method: "GET";
        readonly path: "/v1/webhook-endpoints/{id}/deliveries";
        readonly idempotencyKey: false;
        readonly auth: "bearer";
        readonly stream: false;
    };
    readonly redeliverWebhook: {
        readonly method: "POST";
        readonly path: "/v1/webhook-endpoints/{id}/deliveries/{delivery}/redeliver";
        readonly idempotencyKey: true;
        readonly auth: "bearer";
        readonly stream: false;
    };
};

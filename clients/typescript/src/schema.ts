// Generated from httpapi/openapi.json by scripts/generate.mjs (openapi-typescript): do not edit.
// Run `npm run generate` after a change to the document.

export interface paths {
    "/v1/locations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the locations
         * @description A page of the locations, in id order.
         *
         *     Roles: admin, storefront, reader.
         */
        get: operations["listLocations"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/locations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a location
         * @description Roles: admin, storefront, reader.
         */
        get: operations["getLocation"];
        /**
         * Create or replace a location
         * @description Sets the location's name and coordinates, creating it if needed.
         *
         *     Roles: admin.
         */
        put: operations["putLocation"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/locations/{id}/stock": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A location's stock
         * @description A page of the stock levels at the location, in SKU order, each with its counters and version. prefix keeps the SKUs that start with it. An unknown location is 404; one without stock has an empty page.
         *
         *     Roles: admin, storefront, reader.
         */
        get: operations["getLocationStock"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/stock": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the SKUs
         * @description A page of the SKUs that have a level, with their totals, in SKU (byte) order.
         *
         *     Roles: admin, storefront, reader.
         */
        get: operations["listSKUs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/stock/{sku}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a SKU's stock
         * @description Its levels, one per location, and their totals. A SKU with no level anywhere is 404.
         *
         *     Roles: admin, storefront, reader.
         */
        get: operations["getStock"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/stock/{sku}/{location}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set the on-hand quantity
         * @description An absolute set, creating the level if needed; with expected_version a compare-and-set (409 version_conflict). A quantity below reserved + committed is 409 insufficient_stock; an unknown location is 404.
         *
         *     Roles: admin.
         */
        put: operations["setStock"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/stock/{sku}/{location}/adjust": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Adjust the on-hand quantity
         * @description Adds delta to on_hand, recording reason in the ledger; a positive delta creates a missing level. A result below zero or below reserved + committed is 409 insufficient_stock.
         *
         *     Roles: admin.
         */
        post: operations["adjustStock"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/reservations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List reservations
         * @description A page of the reservations that match, newest first. Following next_cursor reads every reservation that matched when the walk began, once.
         *
         *     Roles: admin, storefront, reader. A storefront key sees only the reservations and orders it created: those of other keys answer 404.
         */
        get: operations["listReservations"];
        put?: never;
        /**
         * Hold stock
         * @description Holds every line or none until the reservation expires, is confirmed or is released. Not enough available is 409 insufficient_stock; an unknown SKU or location is 404. While a waiting room stands in front of a line's SKU and is scheduled or queueing, the body carries the admission of a visitor it admitted: without one, 403 admission_required, naming the room to join; with a token that does not check (forged, expired, for another visitor or room), 403 admission_invalid, saying why.
         *
         *     Roles: admin, storefront. A storefront key acts on its own reservations and orders only: those of other keys answer 404.
         */
        post: operations["reserve"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/reservations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a reservation
         * @description A hold past its expiry reads as expired.
         *
         *     Roles: admin, storefront, reader. A storefront key sees only the reservations and orders it created: those of other keys answer 404.
         */
        get: operations["getReservation"];
        put?: never;
        post?: never;
        /**
         * Release a reservation
         * @description Gives a held reservation's stock back. A released or expired one is returned unchanged; a confirmed one is 409 invalid_state (cancel its order instead); one whose payment is processing or authorized is 409 payment_in_flight, naming the payment (cancel an authorized payment first, which releases the reservation; a processing one ends only with its outcome).
         *
         *     Roles: admin, storefront. A storefront key acts on its own reservations and orders only: those of other keys answer 404.
         */
        delete: operations["releaseReservation"];
        options?: never;
        head?: never;
        /**
         * Update a reservation's metadata
         * @description Merges the body's metadata into the reservation's, in any status, and emits reservation.updated. Nothing else changes: its status, expiry and stock stay as they are.
         *
         *     Roles: admin, storefront. A storefront key acts on its own reservations and orders only: those of other keys answer 404.
         */
        patch: operations["updateReservation"];
        trace?: never;
    };
    "/v1/reservations/{id}/confirm": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Confirm a reservation into an order
         * @description Reserved stock becomes committed. Confirming a confirmed reservation returns its order again; a released one is 409 invalid_state; an expired one is 410 reservation_expired.
         *
         *     Roles: admin, storefront. A storefront key acts on its own reservations and orders only: those of other keys answer 404.
         */
        post: operations["confirmReservation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orders": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List orders
         * @description A page of the orders that match, newest first. Following next_cursor reads every order that matched when the walk began, once.
         *
         *     Roles: admin, storefront, reader. A storefront key sees only the reservations and orders it created: those of other keys answer 404.
         */
        get: operations["listOrders"];
        put?: never;
        /**
         * Check out directly
         * @description Reserves and confirms in one step: every line or none. ttl_seconds is checked and ignored. While a waiting room stands in front of a line's SKU and is scheduled or queueing, the body carries the admission of a visitor it admitted: without one, 403 admission_required, naming the room to join; with a token that does not check (forged, expired, for another visitor or room), 403 admission_invalid, saying why.
         *
         *     Roles: admin, storefront. A storefront key acts on its own reservations and orders only: those of other keys answer 404.
         */
        post: operations["checkout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orders/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read an order
         * @description Roles: admin, storefront, reader. A storefront key sees only the reservations and orders it created: those of other keys answer 404.
         */
        get: operations["getOrder"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Update an order's metadata
         * @description Merges the body's metadata into the order's, in any status, and emits order.updated. Its version (and so its ETag) stays as it was: metadata is the shop's, not the order's state.
         *
         *     Roles: admin, storefront. A storefront key acts on its own reservations and orders only: those of other keys answer 404.
         */
        patch: operations["updateOrder"];
        trace?: never;
    };
    "/v1/orders/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel an order
         * @description Gives a committed order's stock back: what it has not shipped, when it has shipped a part; it keeps its shipments and its shipped units. A cancelled one is returned unchanged; a fulfilled one is 409 invalid_state. With expected_version or If-Match, an order at another version is 409 version_conflict (an order already cancelled is returned unchanged whatever its version).
         *
         *     Roles: admin, storefront. A storefront key acts on its own reservations and orders only: those of other keys answer 404.
         */
        post: operations["cancelOrder"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orders/{id}/fulfill": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Fulfill an order
         * @description Ships what is left of a committed order as one shipment (see POST /v1/orders/{id}/shipments): its stock leaves on_hand, and the order is fulfilled. A fulfilled one is returned unchanged; a cancelled one is 409 invalid_state. With expected_version or If-Match, an order at another version is 409 version_conflict (an order already fulfilled is returned unchanged whatever its version).
         *
         *     Roles: admin.
         */
        post: operations["fulfillOrder"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orders/{id}/shipments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List an order's shipments
         * @description A page of the order's shipments, newest first. An unknown order is 404.
         *
         *     Roles: admin, storefront, reader. A storefront key sees only the reservations and orders it created: those of other keys answer 404.
         */
        get: operations["listShipments"];
        put?: never;
        /**
         * Ship part of an order
         * @description Ships the units the lines name of a committed order: they leave on_hand and committed, the rest stays committed. The shipment that ships the last units fulfils the order (order.fulfilled follows order.shipped). Units beyond what the order has left to ship of a SKU are 409 invalid_state, naming what is left; a SKU, or a SKU at a location, that the order has no allocation of is 400 invalid; a cancelled or fulfilled order is 409 invalid_state. A refusal ships nothing. With expected_version or If-Match, an order at another version is 409 version_conflict.
         *
         *     Roles: admin.
         */
        post: operations["shipOrder"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/shows": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the shows
         * @description A page of the shows, newest first: their heads (id, name, focal point, creation time, version), without seat map or areas; GET /v1/shows/{id} has those, with the seat counts. Following next_cursor reads every show that existed when the walk began, once.
         *
         *     Roles: admin, storefront, reader.
         */
        get: operations["listShows"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/shows/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a show
         * @description The show, its map and areas, and how many of its seats are in each status.
         *
         *     Roles: admin, storefront, reader.
         */
        get: operations["getShow"];
        /**
         * Create a show or change its map
         * @description Sets the show's name, focal point, rows and areas, creating it if needed. Seats the new map drops or changes must be free or blocked, and an area that goes must have no places held or booked (409 invalid_state, naming them); seats the map keeps as they were keep their status, holds and bookings.
         *
         *     Roles: admin.
         */
        put: operations["putShow"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/shows/{id}/seats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a show's seats
         * @description A page of the show's seats in seat order, filtered by status and section.
         *
         *     Roles: admin, storefront, reader.
         */
        get: operations["listSeats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/shows/{id}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a show's seat history
         * @description A page of the show's seat history, oldest row first: every change of a seat's status, and every move of an area's places, written in the transaction that made it, never changed after. Filtered by seat or by area (not both). A storefront key gets the moves without the hold, booking and key that made them.
         *
         *     Roles: admin, storefront, reader.
         */
        get: operations["listSeatHistory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/shows/{id}/holds": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a show's holds
         * @description A page of the holds of the show that match, newest first. Following next_cursor reads every hold that matched when the walk began, once. An unknown show has none: the page is empty. A held hold that has lapsed is listed as expired, as GET /v1/holds/{id} shows it; the status filter is on the stored status, so it is listed with the held ones until the sweeper expires it.
         *
         *     Roles: admin, storefront, reader. A storefront key sees only the holds and bookings it created: those of other keys are left out.
         */
        get: operations["listShowHolds"];
        put?: never;
        /**
         * Hold seats and places of a show
         * @description Holds what the body asks, all or none, until the hold expires, is confirmed or is released; lapsed holds of the show are expired first. A named seat that is not free is 409 seats_unavailable, naming it; seats or places that no free ones meet are 409 sold_out, saying which; an unknown show, seat or area is 404. While a waiting room stands in front of the show and is scheduled or queueing, the body carries the admission of a visitor it admitted: without one, 403 admission_required, naming the room to join; with a token that does not check (forged, expired, for another visitor or room), 403 admission_invalid, saying why.
         *
         *     Roles: admin, storefront. A storefront key acts on its own holds and bookings only: those of other keys answer 404.
         */
        post: operations["holdSeats"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/shows/{id}/bookings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a show's bookings
         * @description A page of the bookings of the show that match, newest first. Following next_cursor reads every booking that matched when the walk began, once. An unknown show has none: the page is empty.
         *
         *     Roles: admin, storefront, reader. A storefront key sees only the holds and bookings it created: those of other keys are left out.
         */
        get: operations["listShowBookings"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/holds": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the holds
         * @description A page of the holds across shows that match, newest first. Following next_cursor reads every hold that matched when the walk began, once. A held hold that has lapsed is listed as expired, as GET /v1/holds/{id} shows it; the status filter is on the stored status, so it is listed with the held ones until the sweeper expires it.
         *
         *     Roles: admin, storefront, reader. A storefront key sees only the holds and bookings it created: those of other keys are left out.
         */
        get: operations["listHolds"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/holds/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a hold
         * @description A hold past its expiry reads as expired, though its seats come back only when it is touched, at the next hold on its show, or at the sweep.
         *
         *     Roles: admin, storefront, reader. A storefront key sees only the holds and bookings it created: those of other keys answer 404.
         */
        get: operations["getHold"];
        put?: never;
        post?: never;
        /**
         * Release a hold
         * @description Gives a held hold's seats and places back. A released or expired one is returned unchanged (one that lapsed is expired); a confirmed one is 409 invalid_state (cancel its booking instead); one whose payment is processing or authorized is 409 payment_in_flight, naming the payment (cancel an authorized payment first, which releases the hold; a processing one ends only with its outcome).
         *
         *     Roles: admin, storefront. A storefront key acts on its own holds and bookings only: those of other keys answer 404.
         */
        delete: operations["releaseHold"];
        options?: never;
        head?: never;
        /**
         * Update a hold's metadata
         * @description Merges the body's metadata into the hold's, in any status, and emits hold.updated. Its version, expiry and seats stay as they are.
         *
         *     Roles: admin, storefront. A storefront key acts on its own holds and bookings only: those of other keys answer 404.
         */
        patch: operations["updateHold"];
        trace?: never;
    };
    "/v1/holds/{id}/extend": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Extend a hold
         * @description Makes a held hold last ttl_seconds from now, within the server's longest hold from its creation (past it, 400 invalid). A hold that is no longer held is 409 invalid_state; one that lapsed, 410 hold_expired.
         *
         *     Roles: admin, storefront. A storefront key acts on its own holds and bookings only: those of other keys answer 404.
         */
        post: operations["extendHold"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/holds/{id}/confirm": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Confirm a hold into a booking
         * @description The hold's seats and places become booked. Confirming a confirmed hold returns its booking again; a released one is 409 invalid_state; an expired one is 410 hold_expired.
         *
         *     Roles: admin, storefront. A storefront key acts on its own holds and bookings only: those of other keys answer 404.
         */
        post: operations["confirmHold"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/bookings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the bookings
         * @description A page of the bookings across shows that match, newest first. Following next_cursor reads every booking that matched when the walk began, once.
         *
         *     Roles: admin, storefront, reader. A storefront key sees only the holds and bookings it created: those of other keys are left out.
         */
        get: operations["listBookings"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/bookings/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a booking
         * @description Roles: admin, storefront, reader. A storefront key sees only the holds and bookings it created: those of other keys answer 404.
         */
        get: operations["getBooking"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Update a booking's metadata
         * @description Merges the body's metadata into the booking's, in any status, and emits booking.updated.
         *
         *     Roles: admin, storefront. A storefront key acts on its own holds and bookings only: those of other keys answer 404.
         */
        patch: operations["updateBooking"];
        trace?: never;
    };
    "/v1/bookings/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a booking
         * @description Gives the booking's seats and places back. Cancelling a cancelled booking returns it unchanged.
         *
         *     Roles: admin, storefront. A storefront key acts on its own holds and bookings only: those of other keys answer 404.
         */
        post: operations["cancelBooking"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/rooms": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the waiting rooms
         * @description A page of the rooms, in id order, each as GET /v1/rooms/{id} shows it. Secrets are never shown again.
         *
         *     Roles: admin, storefront, reader.
         */
        get: operations["listRooms"];
        put?: never;
        /**
         * Put a waiting room in front of a show or SKUs
         * @description Puts a room in front of one show or of SKUs. Visitors join it from then on (POST /v1/rooms/{id}/visitors); from opens_at it admits them in its order, at most admit_per_minute a minute, at most active_limit admissions in force at once, and never more than the stock left can serve (per_visitor seats or units each, times stock_factor). Until it sells out or is closed, a hold, reservation or checkout of what it stands in front of needs the admission of a visitor it admitted (403 admission_required, admission_invalid). When nothing is free and nothing held, the room is sold_out and every waiting visitor's ticket says so.
         *
         *     An unknown show is 404; a show or SKU that another scheduled or queueing room stands in front of, or an id in use, is 409 invalid_state, naming the room. The answer holds the secret that signs the room's admission tokens (a shop's front end checks them with it: see RoomTicket's token), the only answer that shows it; a retry under the same Idempotency-Key shows it again.
         *
         *     Roles: admin.
         */
        post: operations["createRoom"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/rooms/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a waiting room
         * @description The room, without its secret: its settings, its counts of visitors, its admissions in force and what its show or SKUs have left.
         *
         *     Roles: admin, storefront, reader.
         */
        get: operations["getRoom"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change a waiting room
         * @description Changes the fields given; those left out are kept. status closes the room (anyone may then buy, as without it) or opens again one that is closed or sold out. A change that would reorder the visitors already queued (a new order, or a new opens_at of a random_at_opening room that visitors joined) is 409 invalid_state unless reorder is true; the order of a room that has opened, and the opening of a room that has opened, cannot change (409 invalid_state). expected_version makes the change a compare-and-set (409 version_conflict).
         *
         *     Roles: admin.
         */
        patch: operations["updateRoom"];
        trace?: never;
    };
    "/v1/rooms/{id}/visitors": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Join a visitor to a waiting room
         * @description Gives the visitor the next place in the room's order (under random_at_opening, before the room opens, a place drawn at opening), and answers its ticket. A visitor has one place: joining again answers the same place, so the operation is idempotent by itself, and its Idempotency-Key is checked with nothing stored under it. A room that is closed is 409 invalid_state, one that sold out 409 sold_out, to a visitor who had not joined.
         *
         *     Roles: admin, storefront.
         */
        post: operations["joinRoom"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/rooms/{id}/visitors/{visitor}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a visitor's ticket
         * @description Where the visitor stands: waiting (with how many are ahead and the estimated wait), admitted (with the token to hold with, until expires_at), expired, or told that the sale sold out or the room closed. A visitor that has not joined is 404.
         *
         *     Roles: admin, storefront.
         */
        get: operations["getRoomTicket"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/rooms/{id}/visitors/{visitor}/leave": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * End a visitor's admission
         * @description Ends the visitor's admission at once and answers its ticket, now `expired`: call it when the visitor has bought or left, so that the room's active limit lets the next visitor in without waiting for the admission to run out. Leaving again changes nothing. A visitor still waiting has no admission to end (409 invalid_state); one that has not joined is 404.
         *
         *     Roles: admin, storefront.
         */
        post: operations["leaveRoom"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/rooms/{id}/visitors/{visitor}/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Follow a visitor's ticket (Server-Sent Events)
         * @description The visitor's ticket now, then again each time it changes (its place, the number ahead, the estimated wait, its admission and token), as Server-Sent Events: `event: ticket`, `data:` the ticket in JSON, as GET /v1/rooms/{id}/visitors/{visitor} answers it. The service reads each watched room once per round and works out every watcher's ticket, so a crowd watching costs one read a round, not one per visitor. A new status or place is sent at once; a ticket that only counts down (fewer ahead, a shorter wait) at most every twentieth of the visitor's estimated wait, from 1 s to 15 s, so that a crowd far from the front is woken seldom. The stream ends after a ticket that no longer changes: `sold_out`, `closed` or `expired`. A comment line is sent every 15 s while nothing changes. The stream ends when the server shuts down. It runs without the request timeout. A visitor that has not joined is 404, before the stream begins.
         *
         *     Roles: admin, storefront.
         */
        get: operations["streamRoomTicket"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List payments
         * @description A page of the payments that match, newest first. Following next_cursor reads every payment that matched when the walk began, once.
         *
         *     Roles: admin, storefront, reader. A storefront key sees only the payments of what it created: those of other keys answer 404.
         */
        get: operations["listPayments"];
        put?: never;
        /**
         * Record the payment of a reservation, hold or order
         * @description Records the pending payment of a held reservation or hold, or of a committed order, before the client sends its buyer to the payment system. Each has one payment at most: a second is 409 payment_exists, naming the first. A reservation or hold that lapsed is 410 reservation_expired or hold_expired; one in another status, or an order that is not committed, 409 invalid_state. An unknown one is 404. While the payment is processing or authorized, its reservation or hold does not expire.
         *
         *     Roles: admin, storefront. A storefront key acts on the payments of what it created only: those of other keys answer 404.
         */
        post: operations["createPayment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payments/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a payment
         * @description The payment, and what it did to what it pays for.
         *
         *     Roles: admin, storefront, reader. A storefront key sees only the payments of what it created: those of other keys answer 404.
         */
        get: operations["getPayment"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Update a payment's metadata
         * @description Merges the body's metadata into the payment's, in any status, and emits payment.updated. Its version and status stay as they are.
         *
         *     Roles: admin, storefront. A storefront key acts on its own payments only: those of other keys answer 404.
         */
        patch: operations["updatePayment"];
        trace?: never;
    };
    "/v1/payments/{id}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a payment's history
         * @description Every change of the payment, oldest first: each move of its status, its resolution, its being found stuck, with who made it and why.
         *
         *     Roles: admin, storefront, reader. A storefront key sees only the payments of what it created: those of other keys answer 404.
         */
        get: operations["getPaymentHistory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payments/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a payment
         * @description Cancels a pending or authorized payment (a processing one can only succeed or fail, as the payment system decides) and gives back what it pays for: its reservation or hold is released, its order cancelled. A cancelled payment is returned unchanged; any other status is 409 invalid_state, naming it.
         *
         *     Roles: admin, storefront. A storefront key acts on the payments of what it created only: those of other keys answer 404.
         */
        post: operations["cancelPayment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payments/{id}/outcomes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Apply an outcome by hand
         * @description An operator reports an outcome of the payment, as the payment system would: the history records it under the key's name. An outcome whose event_id was applied before changes nothing, and answers the payment as it is now. So does one that is stale: the payment is in its status already, or past it (processing after succeeded). One the status table leads to, in one move or more, moves the payment there; one that contradicts it (failed after succeeded) changes nothing and is 409 invalid_state, naming the payment's status; the payment's history records it (a change from its status to the same, its reason beginning "ignored outcome"), and its event_id is kept, so the same outcome again answers the payment as it is. The first outcome that settles the payment (succeeded, captured) confirms its reservation or hold into an order or a booking; the first that fails or cancels it releases them, or cancels the order. An unknown payment is 404. The event_id makes it idempotent: an Idempotency-Key is checked, but nothing is stored under it.
         *
         *     Roles: admin.
         */
        post: operations["applyPaymentOutcome"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payments/webhook": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Report an outcome from a payment system
         * @description Where a payment system posts the outcomes of payments, at least once each and in any order. It needs no API key: the body must be signed with a secret shared with the server (the webhookSignature scheme); a request that is not is 401, and a server without a webhook secret answers 404. The history records the outcome as the webhook's. An outcome whose event_id was applied before changes nothing, and answers the payment as it is now. So does one that is stale: the payment is in its status already, or past it (processing after succeeded). One the status table leads to, in one move or more, moves the payment there; one that contradicts it (failed after succeeded) changes nothing either, and is answered 200 all the same, with ignored_outcome saying why: a payment system delivers again, for days, whatever is not answered 2xx. The payment's history records it (a change from its status to the same, its reason beginning "ignored outcome"), and its event_id is kept, so a delivery of it again is a replay (POST /v1/payments/{id}/outcomes answers it 409 invalid_state). The first outcome that settles the payment (succeeded, captured) confirms its reservation or hold into an order or a booking; the first that fails or cancels it releases them, or cancels the order. An unknown payment is 404. The event_id makes a delivery safe to repeat: an Idempotency-Key is checked, but nothing is stored under it.
         *
         *     Public: no API key; signed.
         */
        post: operations["paymentWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/movements": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the ledger
         * @description A page of the ledger rows that match, oldest first. Filters combine; the cursor keeps the filters of the page it came from.
         *
         *     Roles: admin, reader.
         */
        get: operations["listMovements"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the API keys
         * @description A page of the keys, revoked ones included, in id order. Secrets are never shown again.
         *
         *     Roles: admin.
         */
        get: operations["listKeys"];
        put?: never;
        /**
         * Create an API key
         * @description The answer holds the key's secret, the only time it is shown: only its hash is stored. It takes no Idempotency-Key (400), which would mean keeping the secret to replay it: the name is unique, so a retry of a creation that went through is 409 invalid_state, as is any name in use, and a server that keeps no keys answers 409 invalid_state too.
         *
         *     Roles: admin.
         */
        post: operations["createKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/keys/{id}": {
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
         * Revoke an API key
         * @description From then on its secret authenticates nothing (on other server instances, within their key cache's lifetime). Revoking a revoked key returns it unchanged.
         *
         *     Roles: admin.
         */
        delete: operations["revokeKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Liveness
         * @description The process answers.
         *
         *     Public: no API key.
         */
        get: operations["healthz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Readiness
         * @description The process and its dependencies (the store) answer; 503 unavailable otherwise.
         *
         *     Public: no API key.
         */
        get: operations["readyz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics
         * @description The server's metrics in the Prometheus text format.
         *
         *     Public: no API key.
         */
        get: operations["metrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This document
         * @description The OpenAPI document of the API, as JSON. Revalidate with If-None-Match: an unchanged document is 304.
         *
         *     Public: no API key.
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
    "/v1/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the events
         * @description The events after a cursor, in commit order: an event that commits late is waited for, never passed, so following next_cursor reads every event once. `after=latest` starts at the head of the feed, after every event committed so far: a page with no event and the head's next_cursor, from which to long-poll for the changes to come. With wait, a query that finds none waits that long for one (a long poll), answering at once when one commits on this instance and within a second for other instances; the wait ends before the request timeout, with an empty page.
         *
         *     Roles: admin, reader.
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
    "/v1/events/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Follow the events (Server-Sent Events)
         * @description The events after Last-Event-ID (or ?after=), then each event as it commits, as Server-Sent Events: `id:` is the event's cursor, `event:` its type, `data:` the event in JSON. A client that reconnects with the last id it saw misses nothing and sees nothing twice. With `?after=latest` it sends only the events that commit once the stream has answered, each with its id as usual. A comment line is sent every 15 s while nothing happens. A failure after the stream began is sent as an `error` event whose data is a problem document, and ends the stream. The stream ends when the server shuts down. It runs without the request timeout.
         *
         *     Roles: admin, reader.
         */
        get: operations["streamEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/locks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the locks
         * @description A page of the lock keys that the lock strategy's locker holds or queues for, with their holders and how many wait, as `stockade locks ls -json` prints them: the keys in byte order, a key's kinds in name order (lock, rwlock, semaphore). It is a view at the moment of each request, read afresh for each page: a key released between two pages is not listed again, a key held throughout the walk is listed once. A server whose strategy takes no locks, or whose locker cannot be inspected, answers 409 invalid_state.
         *
         *     Roles: admin, reader.
         */
        get: operations["listLocks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook-endpoints": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the webhook endpoints
         * @description A page of the endpoints, in id order. Secrets are never shown again.
         *
         *     Roles: admin.
         */
        get: operations["listWebhookEndpoints"];
        put?: never;
        /**
         * Register a webhook endpoint
         * @description From then on, every event of the types it asks for that commits is posted to its URL as JSON (the event as GET /v1/events shows it), signed with its secret in Stockade-Signature (t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">), with the delivery's id in Stockade-Delivery, the same on every attempt. Deliveries arrive at least once, in commit order per aggregate; 408, 429, 5xx, timeouts and connection errors are retried with backoff for up to three days (serve -webhook-retry-for), 410 disables the endpoint, other answers (redirects included, which are not followed) fail the delivery at once. The answer holds the secret, the only time it is shown; it takes no Idempotency-Key (400).
         *
         *     Roles: admin.
         */
        post: operations["createWebhookEndpoint"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook-endpoints/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a webhook endpoint
         * @description The endpoint, without its secret.
         *
         *     Roles: admin.
         */
        get: operations["getWebhookEndpoint"];
        put?: never;
        post?: never;
        /**
         * Delete a webhook endpoint
         * @description Deletes the endpoint and its deliveries, pending ones included, and returns it as it was.
         *
         *     Roles: admin.
         */
        delete: operations["deleteWebhookEndpoint"];
        options?: never;
        head?: never;
        /**
         * Change a webhook endpoint
         * @description Changes the fields given: its URL, event types, description, or whether it is disabled.
         *
         *     Roles: admin.
         */
        patch: operations["updateWebhookEndpoint"];
        trace?: never;
    };
    "/v1/webhook-endpoints/{id}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate a webhook endpoint's secret
         * @description Gives the endpoint a new secret, in this answer only. The old one goes on signing deliveries beside it (a second v1 entry) for overlap_seconds, so the receiver can move to the new one without refusing any. It takes no Idempotency-Key (400).
         *
         *     Roles: admin.
         */
        post: operations["rotateWebhookSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook-endpoints/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a webhook endpoint's deliveries
         * @description A page of the endpoint's deliveries, newest first: each one's status, attempts, and the last answer's code, time and error.
         *
         *     Roles: admin.
         */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook-endpoints/{id}/deliveries/{delivery}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Redeliver a webhook delivery
         * @description Makes a failed (or succeeded) delivery pending again, for one attempt at once, with the same delivery id. A pending one is 409 invalid_state.
         *
         *     Roles: admin.
         */
        post: operations["redeliverWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /**
         * @description An identifier (a SKU, a location id, a reservation, order or key id, a key's name): 1 to 128 bytes of UTF-8 without control characters. maxLength counts characters; the server's limit is 128 bytes.
         * @example widget
         */
        Id: string;
        /** @description Free text: at most 1024 bytes of UTF-8 without control characters. */
        Text: string;
        /**
         * Format: int64
         * @description A quantity of a line: 1 to 1,000,000,000.
         */
        Quantity: number;
        /**
         * Format: int64
         * @description A counter of a level, never negative.
         */
        Count: number;
        /** Format: double */
        Latitude: number;
        /** Format: double */
        Longitude: number;
        /**
         * Format: date-time
         * @description An RFC 3339 time in UTC, to the microsecond.
         * @example 2030-01-02T03:04:05Z
         */
        Time: string;
        /** @description The opaque cursor of the next page, to pass as ?cursor=; absent on the last page. Unpadded base64url (RFC 4648 §5) that the service gave out: it accepts no other. */
        NextCursor: string;
        /** @description A place that holds stock. lat and lon come together, or neither for a location without a place of its own (a virtual warehouse, a drop-shipper): an order with a ship_to point takes from such locations only after every placed one, the one with the most available first. */
        Location: {
            id: components["schemas"]["Id"];
            name: components["schemas"]["Text"];
            lat?: components["schemas"]["Latitude"];
            lon?: components["schemas"]["Longitude"];
        };
        /** @description The body of PUT /v1/locations/{id}: the location without its id, which is in the path. name is required; lat and lon are given together, or neither for a location without a place. Unknown fields, a key given twice or in another case are refused. */
        LocationBody: {
            name: components["schemas"]["Text"];
            lat?: components["schemas"]["Latitude"];
            lon?: components["schemas"]["Longitude"];
        };
        /** @description A page of the locations, in id order. */
        LocationPage: {
            locations: components["schemas"]["Location"][];
            next_cursor?: components["schemas"]["NextCursor"];
        };
        /** @description A SKU's stock at one location. */
        Level: {
            sku: components["schemas"]["Id"];
            location: components["schemas"]["Id"];
            on_hand: components["schemas"]["Count"];
            reserved: components["schemas"]["Count"];
            committed: components["schemas"]["Count"];
            /** @description on_hand − reserved − committed. */
            available: components["schemas"]["Count"];
            /**
             * Format: int64
             * @description Bumped by every change of the level; the expected_version of a compare-and-set.
             */
            version: number;
        };
        /** @description A level inside a Stock: the SKU is the Stock's. */
        StockLevel: {
            location: components["schemas"]["Id"];
            on_hand: components["schemas"]["Count"];
            reserved: components["schemas"]["Count"];
            committed: components["schemas"]["Count"];
            /** @description on_hand − reserved − committed. */
            available: components["schemas"]["Count"];
            /**
             * Format: int64
             * @description Bumped by every change of the level; the expected_version of a compare-and-set.
             */
            version: number;
        };
        /** @description A SKU's counters summed over its locations. */
        Totals: {
            on_hand: components["schemas"]["Count"];
            reserved: components["schemas"]["Count"];
            committed: components["schemas"]["Count"];
            available: components["schemas"]["Count"];
        };
        /** @description A SKU's levels, one per location, and their totals. */
        Stock: {
            sku: components["schemas"]["Id"];
            levels: components["schemas"]["StockLevel"][];
            totals: components["schemas"]["Totals"];
        };
        /** @description A page of the SKUs that have a level, with their totals, in SKU (byte) order. */
        SKUPage: {
            skus: {
                sku: components["schemas"]["Id"];
                totals: components["schemas"]["Totals"];
            }[];
            next_cursor?: components["schemas"]["NextCursor"];
        };
        /** @description The body of PUT /v1/stock/{sku}/{location}: an absolute on-hand quantity, and optionally the version the level must be at (a compare-and-set; a missing level is at version 0). */
        SetStockBody: {
            /** Format: int64 */
            on_hand: number;
            /**
             * Format: int64
             * @description The version the level must be at; null, or left out, for an unconditional set.
             */
            expected_version?: number | null;
        };
        /** @description The body of POST /v1/stock/{sku}/{location}/adjust: a change of the on-hand quantity and why, recorded in the ledger. */
        AdjustBody: {
            /**
             * Format: int64
             * @description Added to on_hand (negative to remove); not zero.
             */
            delta: number;
            reason: components["schemas"]["Text"];
        };
        Point: {
            lat: components["schemas"]["Latitude"];
            lon: components["schemas"]["Longitude"];
        };
        LineBody: {
            sku: components["schemas"]["Id"];
            quantity: components["schemas"]["Quantity"];
            /** @description Take the line from this location; leave it out to let the service allocate. */
            location?: components["schemas"]["Id"];
        };
        /** @description The body of POST /v1/reservations and POST /v1/orders: every line is taken, or none. Lines without a location are allocated from the nearest locations first when ship_to is given, else from the location with the most available. */
        ReserveBody: {
            lines: components["schemas"]["LineBody"][];
            /**
             * Format: int64
             * @description How long a reservation holds its stock, in seconds; leave it out for the server's default (15 minutes). The maximum is the server's (24 hours unless configured otherwise). Checked, then ignored, by a direct checkout.
             */
            ttl_seconds?: number;
            ship_to?: components["schemas"]["Point"];
            metadata?: components["schemas"]["Metadata"];
            admission?: components["schemas"]["Admission"];
        };
        /** @description No body, or an empty object. */
        EmptyBody: Record<string, never>;
        Line: {
            sku: components["schemas"]["Id"];
            quantity: components["schemas"]["Quantity"];
            /** @description The location the line named; absent if it named none. */
            location?: components["schemas"]["Id"];
        };
        /** @description The part of the lines of a SKU taken from one location. */
        Allocation: {
            sku: components["schemas"]["Id"];
            location: components["schemas"]["Id"];
            quantity: components["schemas"]["Quantity"];
        };
        /** @enum {string} */
        ReservationStatus: "held" | "confirmed" | "released" | "expired";
        /** @enum {string} */
        OrderStatus: "committed" | "cancelled" | "fulfilled";
        /** @description A hold on stock, until it expires, is confirmed into an order, or is released. */
        Reservation: {
            id: components["schemas"]["Id"];
            status: components["schemas"]["ReservationStatus"];
            created_at: components["schemas"]["Time"];
            expires_at: components["schemas"]["Time"];
            lines: components["schemas"]["Line"][];
            allocations: components["schemas"]["Allocation"][];
            /** @description The order it was confirmed into; absent until then. */
            order_id?: components["schemas"]["Id"];
            /** @description The id of the API key that created it; absent when it was made without a key. */
            owner?: components["schemas"]["Id"];
            metadata?: components["schemas"]["Metadata"];
        };
        /** @description Committed stock: confirmed from a reservation or checked out directly. */
        Order: {
            id: components["schemas"]["Id"];
            status: components["schemas"]["OrderStatus"];
            lines: components["schemas"]["Line"][];
            allocations: components["schemas"]["Allocation"][];
            /** @description The reservation it was confirmed from; absent for a direct checkout. */
            reservation_id?: components["schemas"]["Id"];
            created_at: components["schemas"]["Time"];
            /** @description The id of the API key that created it; absent when it was made without a key. */
            owner?: components["schemas"]["Id"];
            /** @description What has left so far, one allocation per level (SKU and location), summed over the order's shipments; absent until the first. A fulfilled order has shipped all its allocations; a cancelled one keeps what it shipped before the cancel gave the rest back. */
            shipped?: components["schemas"]["Allocation"][];
            /**
             * Format: int64
             * @description 1 when committed, one more at each shipment and at each change of its status (the shipment that ships the last units, and so fulfils the order, counts one).
             */
            version: number;
            metadata?: components["schemas"]["Metadata"];
        };
        /** @description A page of reservations. */
        ReservationPage: {
            reservations: components["schemas"]["Reservation"][];
            next_cursor?: components["schemas"]["NextCursor"];
        };
        /** @description A page of the orders that match, newest first. Following next_cursor reads every order that matched when the walk began, once. */
        OrderPage: {
            orders: components["schemas"]["Order"][];
            next_cursor?: components["schemas"]["NextCursor"];
        };
        /** @description A part of an order that left: units of its allocations, each from the location of the allocation it came out of. */
        Shipment: {
            id: components["schemas"]["Id"];
            order_id: components["schemas"]["Id"];
            created_at: components["schemas"]["Time"];
            /** @description What it took, one per level, in SKU then location order. */
            lines: components["schemas"]["Allocation"][];
            /**
             * Format: int64
             * @description The version the order reached with the shipment: the If-Match (or expected_version) of the next change of the order.
             */
            order_version: number;
            metadata?: components["schemas"]["Metadata"];
        };
        /** @description The body of POST /v1/orders/{id}/shipments: the units that leave, all of them or none. A line with a location takes from the order's allocation of its SKU there; the lines of a SKU without one take from what is left of its allocations in location order (the smaller location id first), after the lines that name a location. Lines of the same SKU and location add up. */
        NewShipment: {
            lines: components["schemas"]["LineBody"][];
            metadata?: components["schemas"]["Metadata"];
            /**
             * Format: int64
             * @description Ship only if the order is at this version (its `version`, the ETag of GET /v1/orders/{id}, or the order_version of its last shipment); at another, 409 version_conflict. The If-Match header says the same; given both, they must agree.
             */
            expected_version?: number;
        };
        /** @description A page of an order's shipments, newest first. Following next_cursor reads every shipment made before the walk began, once. */
        ShipmentPage: {
            shipments: components["schemas"]["Shipment"][];
            next_cursor?: components["schemas"]["NextCursor"];
        };
        /** @description A row of the append-only ledger: the change to one level's counters. */
        Movement: {
            /** Format: int64 */
            id: number;
            at: components["schemas"]["Time"];
            sku: components["schemas"]["Id"];
            location: components["schemas"]["Id"];
            /** @enum {string} */
            kind: "set" | "adjust" | "reserve" | "release" | "expire" | "confirm" | "checkout" | "cancel" | "fulfill";
            /**
             * Format: int64
             * @description The change of on_hand (negative for a decrease).
             */
            on_hand: number;
            /**
             * Format: int64
             * @description The change of reserved (negative for a decrease).
             */
            reserved: number;
            /**
             * Format: int64
             * @description The change of committed (negative for a decrease).
             */
            committed: number;
            /** @description The reservation or order the change belongs to, if any. */
            ref?: components["schemas"]["Id"];
            /** @description Why: an adjustment's reason, or what a set did. */
            reason?: components["schemas"]["Text"];
            /** @description The name of the API key that made the change; absent when the service itself made it (an expiry, the command line). */
            actor?: components["schemas"]["Id"];
        };
        /** @description A page of the ledger, oldest row first. */
        MovementPage: {
            movements: components["schemas"]["Movement"][];
            next_cursor?: components["schemas"]["NextCursor"];
        };
        /**
         * @description admin may do everything; storefront reads stock and locations and creates, reads, confirms and releases its own reservations and orders; reader reads everything and changes nothing.
         * @enum {string}
         */
        Role: "admin" | "storefront" | "reader";
        /**
         * Format: double
         * @description The key's requests per second; 0 (or absent) means the server's default.
         */
        RateLimit: number;
        /** @description An API key, without its secret. */
        APIKey: {
            id: components["schemas"]["Id"];
            name: components["schemas"]["Id"];
            role: components["schemas"]["Role"];
            /** @description The key's requests per second; absent when it has the server's default. */
            rate_limit?: components["schemas"]["RateLimit"];
            created_at: components["schemas"]["Time"];
            /** @description When the key was revoked; absent while it is live. */
            revoked_at?: components["schemas"]["Time"];
        };
        /** @description A key just created, with its secret: the only time the secret is shown. */
        NewAPIKey: {
            id: components["schemas"]["Id"];
            name: components["schemas"]["Id"];
            role: components["schemas"]["Role"];
            /** @description The key's requests per second; absent when it has the server's default. */
            rate_limit?: components["schemas"]["RateLimit"];
            created_at: components["schemas"]["Time"];
            /** @description The bearer token, shown only in this answer: stk_… */
            secret: string;
        };
        /** @description The body of POST /v1/keys. */
        KeyBody: {
            /** @description Whose key it is; unique among keys. Ledger rows of changes made with the key record it. */
            name: components["schemas"]["Id"];
            role: components["schemas"]["Role"];
            rate_limit?: components["schemas"]["RateLimit"];
        };
        /** @description A page of the keys, revoked ones included, in id order. */
        KeyPage: {
            keys: components["schemas"]["APIKey"][];
            next_cursor?: components["schemas"]["NextCursor"];
        };
        Health: {
            /** @constant */
            status: "ok";
        };
        Ready: {
            /** @constant */
            status: "ready";
        };
        /** @description An RFC 9457 problem document with stockade's stable code. type is urn:stockade:problem: followed by the code, title the status's reason phrase, detail a sentence for people that names what is wrong. */
        Problem: {
            type: string;
            title: string;
            status: number;
            /** @enum {string} */
            code: "invalid" | "unauthenticated" | "forbidden" | "not_found" | "insufficient_stock" | "version_conflict" | "invalid_state" | "reservation_expired" | "idempotency_mismatch" | "rate_limited" | "unavailable" | "internal" | "seats_unavailable" | "sold_out" | "hold_expired" | "payment_exists" | "payment_in_flight" | "admission_required" | "admission_invalid";
            detail: string;
        };
        Problem400: {
            /** @constant */
            title?: "Bad Request";
            /** @constant */
            status?: 400;
            /** @constant */
            code?: "invalid";
            /** @constant */
            type?: "urn:stockade:problem:invalid";
        } & components["schemas"]["Problem"];
        Problem401: {
            /** @constant */
            title?: "Unauthorized";
            /** @constant */
            status?: 401;
            /** @constant */
            code?: "unauthenticated";
            /** @constant */
            type?: "urn:stockade:problem:unauthenticated";
        } & components["schemas"]["Problem"];
        Problem403: {
            /** @constant */
            title?: "Forbidden";
            /** @constant */
            status?: 403;
            /** @enum {unknown} */
            code?: "forbidden" | "admission_required" | "admission_invalid";
            /** @enum {unknown} */
            type?: "urn:stockade:problem:forbidden" | "urn:stockade:problem:admission_required" | "urn:stockade:problem:admission_invalid";
        } & components["schemas"]["Problem"];
        Problem404: {
            /** @constant */
            title?: "Not Found";
            /** @constant */
            status?: 404;
            /** @constant */
            code?: "not_found";
            /** @constant */
            type?: "urn:stockade:problem:not_found";
        } & components["schemas"]["Problem"];
        Problem405: {
            /** @constant */
            title?: "Method Not Allowed";
            /** @constant */
            status?: 405;
            /** @constant */
            code?: "invalid";
            /** @constant */
            type?: "urn:stockade:problem:invalid";
        } & components["schemas"]["Problem"];
        Problem409: {
            /** @constant */
            title?: "Conflict";
            /** @constant */
            status?: 409;
            /** @enum {unknown} */
            code?: "insufficient_stock" | "version_conflict" | "invalid_state" | "seats_unavailable" | "sold_out" | "payment_exists" | "payment_in_flight";
            /** @enum {unknown} */
            type?: "urn:stockade:problem:insufficient_stock" | "urn:stockade:problem:version_conflict" | "urn:stockade:problem:invalid_state" | "urn:stockade:problem:seats_unavailable" | "urn:stockade:problem:sold_out" | "urn:stockade:problem:payment_exists" | "urn:stockade:problem:payment_in_flight";
        } & components["schemas"]["Problem"];
        Problem410: {
            /** @constant */
            title?: "Gone";
            /** @constant */
            status?: 410;
            /** @enum {unknown} */
            code?: "reservation_expired" | "hold_expired";
            /** @enum {unknown} */
            type?: "urn:stockade:problem:reservation_expired" | "urn:stockade:problem:hold_expired";
        } & components["schemas"]["Problem"];
        Problem413: {
            /** @constant */
            title?: "Request Entity Too Large";
            /** @constant */
            status?: 413;
            /** @constant */
            code?: "invalid";
            /** @constant */
            type?: "urn:stockade:problem:invalid";
        } & components["schemas"]["Problem"];
        Problem415: {
            /** @constant */
            title?: "Unsupported Media Type";
            /** @constant */
            status?: 415;
            /** @constant */
            code?: "invalid";
            /** @constant */
            type?: "urn:stockade:problem:invalid";
        } & components["schemas"]["Problem"];
        Problem422: {
            /** @constant */
            title?: "Unprocessable Entity";
            /** @constant */
            status?: 422;
            /** @constant */
            code?: "idempotency_mismatch";
            /** @constant */
            type?: "urn:stockade:problem:idempotency_mismatch";
        } & components["schemas"]["Problem"];
        Problem429: {
            /** @constant */
            title?: "Too Many Requests";
            /** @constant */
            status?: 429;
            /** @constant */
            code?: "rate_limited";
            /** @constant */
            type?: "urn:stockade:problem:rate_limited";
        } & components["schemas"]["Problem"];
        Problem500: {
            /** @constant */
            title?: "Internal Server Error";
            /** @constant */
            status?: 500;
            /** @constant */
            code?: "internal";
            /** @constant */
            type?: "urn:stockade:problem:internal";
        } & components["schemas"]["Problem"];
        Problem503: {
            /** @constant */
            title?: "Service Unavailable";
            /** @constant */
            status?: 503;
            /** @constant */
            code?: "unavailable";
            /** @constant */
            type?: "urn:stockade:problem:unavailable";
        } & components["schemas"]["Problem"];
        /** @description One state change, written in the transaction of the change (a transactional outbox). */
        Event: {
            /** @description Unique among events (evt_…): a consumer drops a second delivery by it. */
            id: string;
            /** @enum {string} */
            type: "stock.set" | "stock.adjusted" | "stock.out" | "stock.in" | "reservation.held" | "reservation.confirmed" | "reservation.released" | "reservation.expired" | "reservation.updated" | "order.committed" | "order.cancelled" | "order.fulfilled" | "order.shipped" | "order.updated" | "event.put" | "hold.held" | "hold.extended" | "hold.confirmed" | "hold.released" | "hold.expired" | "hold.updated" | "booking.booked" | "booking.cancelled" | "booking.updated" | "payment.created" | "payment.moved" | "payment.resolved" | "payment.stuck" | "payment.updated" | "room.created" | "room.updated" | "room.opened" | "room.sold_out";
            /** @enum {string} */
            aggregate: "level" | "reservation" | "order" | "event" | "hold" | "booking" | "payment" | "room";
            /** @description SKU@LOCATION for a level; the id of the reservation, order, show (aggregate event), hold, booking or payment. */
            aggregate_id: string;
            /**
             * Format: int64
             * @description The aggregate's version after the change: a level's version; 1 when a reservation is held, 2 once it ends; an order's version (1 when committed, one more at each shipment and each change of its status); a show's version (1 when created, one more at each change of its map); a hold's version (1 when held, one more at each extension and at its end); 1 when a booking is made, 2 once it is cancelled; a payment's version (1 when created, one more at each change). The events of one change share it.
             */
            version: number;
            /** Format: date-time */
            at: string;
            /** @description The aggregate after the change, in the API's own shape: a level (with available), a reservation, an order, a show (aggregate event: without its rows, which GET /v1/shows/{id} has), a hold, a booking, a payment or a room (without its secret), as aggregate says. The order of an order.shipped event carries the shipment too, under shipment (a Shipment). */
            payload: components["schemas"]["Level"] | components["schemas"]["Reservation"] | components["schemas"]["Order"] | components["schemas"]["Show"] | components["schemas"]["Hold"] | components["schemas"]["Booking"] | components["schemas"]["Payment"] | components["schemas"]["Room"];
            /** @description The event's place in the feed: the events after it come with ?after= this, or Last-Event-ID. Opaque: unpadded base64url that the service gave out. */
            cursor: string;
        };
        EventPage: {
            events: components["schemas"]["Event"][];
            /** @description The cursor of the last event; with no event, the query's own (empty for the first), or for after=latest the head's. Always the cursor of the next query. */
            next_cursor: string;
        };
        /**
         * @description A show's id, or a section or row name: an Id without '/', which separates the parts of a seat's id.
         * @example stalls
         */
        SeatName: components["schemas"]["Id"] & unknown;
        /** @description A position on a show's floor plan, in any unit, the same for every seat and the focal point of one show: -1000000 to 1000000 on each axis. */
        SeatPoint: {
            x: number;
            y: number;
        };
        /** @description A row of numbered seats: seat n is labelled n and its id is SECTION/ROW/n; seats n and n+1 sit side by side unless an aisle follows n. Seat first sits at start, and each next one step further along x. A show has at most 10000 rows and 100000 seats; a section and row name one row only. */
        SeatRow: {
            section: components["schemas"]["SeatName"];
            row: components["schemas"]["SeatName"];
            /** @description The number of the row's first seat: 0 to 1000000. */
            first: number;
            /** @description The number of the row's last seat, at least first. */
            last: number;
            /** @description The seats' price level, such as A; absent for none. */
            category?: components["schemas"]["Id"];
            /** @description The numbers of the row's accessible seats. */
            accessible?: number[];
            /** @description The numbers of the row's seats that are not for sale. */
            blocked?: number[];
            /** @description The numbers of the seats that an aisle follows: they and the next do not sit together. */
            aisles_after?: number[];
            /** @description The position of seat first; the origin when left out. */
            start?: components["schemas"]["SeatPoint"];
            /** @description The distance from each seat to the next along x; 1 when left out or 0. */
            step?: number;
        };
        /** @description A general-admission area of a show: capacity places that any hold may take. Names are unique in a show; at most 100 areas. */
        AreaBody: {
            name: components["schemas"]["Id"];
            /** @description The places' price level; absent for none. */
            category?: components["schemas"]["Id"];
            capacity: components["schemas"]["Quantity"];
        };
        /** @description A general-admission area: capacity places, of which held are held by live holds and booked by bookings; capacity − held − booked are left. */
        Area: {
            name: components["schemas"]["Id"];
            /** @description The places' price level; absent for none. */
            category?: components["schemas"]["Id"];
            capacity: components["schemas"]["Quantity"];
            held: components["schemas"]["Count"];
            booked: components["schemas"]["Count"];
        };
        /** @description The body of PUT /v1/shows/{id}: the show without its id, which is in the path (an id in the body is refused), and its whole map. A show needs rows, areas or both. Seats that are held or booked may not change or go, nor an area that has held or booked places go (409 invalid_state); seats the new map keeps as they were keep their status. */
        ShowBody: {
            name: components["schemas"]["Text"];
            /** @description The point the best seats are nearest to: the stage. The origin when left out. */
            focal?: components["schemas"]["SeatPoint"];
            rows?: components["schemas"]["SeatRow"][];
            areas?: components["schemas"]["AreaBody"][];
        };
        /** @description A show (stockade.Show): a seat map and general-admission areas to sell. */
        Show: {
            id: components["schemas"]["SeatName"];
            name: components["schemas"]["Text"];
            /** @description The point the best seats are nearest to: the stage. */
            focal: components["schemas"]["SeatPoint"];
            /** @description The seat map, as it was given; absent when the show has no seats, and in the payload of event.put events. */
            rows?: components["schemas"]["SeatRow"][];
            /** @description The general-admission areas with their counts; absent when there are none. */
            areas?: components["schemas"]["Area"][];
            created_at: components["schemas"]["Time"];
            /**
             * Format: int64
             * @description 1 when created, one more at each change of its map.
             */
            version: number;
        };
        /** @description A show with how many of its seats are in each status, by section and category. */
        ShowView: {
            id: components["schemas"]["SeatName"];
            name: components["schemas"]["Text"];
            /** @description The point the best seats are nearest to: the stage. */
            focal: components["schemas"]["SeatPoint"];
            /** @description The seat map, as it was given; absent when the show has no seats, and in the payload of event.put events. */
            rows?: components["schemas"]["SeatRow"][];
            /** @description The general-admission areas with their counts; absent when there are none. */
            areas?: components["schemas"]["Area"][];
            created_at: components["schemas"]["Time"];
            /**
             * Format: int64
             * @description 1 when created, one more at each change of its map.
             */
            version: number;
            /** @description By section, category and status, in that order; only counts above zero. */
            counts: components["schemas"]["SeatCount"][];
        };
        /**
         * @description free to sell, held by a hold, booked by a booking, or blocked: not for sale.
         * @enum {string}
         */
        SeatStatus: "free" | "held" | "booked" | "blocked";
        SeatCount: {
            section: components["schemas"]["SeatName"];
            /** @description Absent for seats without one. */
            category?: components["schemas"]["Id"];
            status: components["schemas"]["SeatStatus"];
            /** Format: int64 */
            count: number;
        };
        /** @description One seat of a show. */
        Seat: {
            /** @description SECTION/ROW/NUMBER, unique in its show: the name a hold's seats give. */
            id: components["schemas"]["Id"];
            section: components["schemas"]["SeatName"];
            row: components["schemas"]["SeatName"];
            /** @description The seat's number, as people read it. */
            label: string;
            /** @description The seat's place in its row: seats whose orders differ by one sit side by side; an aisle skips one. */
            order: number;
            /** @description The seat's price level; absent for none. */
            category?: components["schemas"]["Id"];
            /** @description true for an accessible seat; absent otherwise. */
            accessible?: boolean;
            position: components["schemas"]["SeatPoint"];
            status: components["schemas"]["SeatStatus"];
            /** @description The hold that holds it, while held. */
            hold_id?: components["schemas"]["Id"];
            /** @description The booking that booked it, while booked. */
            booking_id?: components["schemas"]["Id"];
        };
        /** @description A page of a show's seats, in seat order: by section, row (in byte order) and place in the row. */
        SeatPage: {
            seats: components["schemas"]["Seat"][];
            next_cursor?: components["schemas"]["NextCursor"];
        };
        /** @description A row of a show's append-only seat history: a seat moving from one status to another, or places of a general-admission area moving between statuses. */
        SeatChange: {
            /** Format: int64 */
            id: number;
            at: components["schemas"]["Time"];
            /** @description The show's id. */
            event_id: components["schemas"]["SeatName"];
            /** @description The seat that moved; absent on a row of an area. */
            seat?: components["schemas"]["Id"];
            /** @description The area whose places moved; absent on a row of a seat. */
            area?: components["schemas"]["Id"];
            /**
             * Format: int64
             * @description How many places moved: 1 on a row of a seat.
             */
            quantity: number;
            from: components["schemas"]["SeatStatus"];
            to: components["schemas"]["SeatStatus"];
            /** @description The hold that took, gave back or booked the seat or places; absent for a change of the show's map, and to a storefront key. */
            hold_id?: components["schemas"]["Id"];
            /** @description The booking that booked or gave back the seat or places; absent otherwise, and to a storefront key. */
            booking_id?: components["schemas"]["Id"];
            /** @description The name of the API key that made the change; absent when the service itself made it (an expiry, the command line), and to a storefront key. */
            actor?: components["schemas"]["Id"];
        };
        /** @description A page of a show's seat history, oldest row first. */
        SeatHistoryPage: {
            changes: components["schemas"]["SeatChange"][];
            next_cursor?: components["schemas"]["NextCursor"];
        };
        /** @description Best-available seats, chosen by a fixed rule: quantity seats side by side in one row, the nearest to the focal point, leaving no single free seat alone beside them; failing that, side by side even so; failing that, and only with allow_split, the nearest free seats apart. category, section and accessible narrow the seats. */
        BestSeats: {
            quantity: number;
            category?: components["schemas"]["Id"];
            section?: components["schemas"]["Id"];
            /** @description Accessible seats only. */
            accessible?: boolean;
            /** @description Take seats apart when no block of quantity seats side by side is free. */
            allow_split?: boolean;
        };
        /** @description Places of a general-admission area. */
        Places: {
            area: components["schemas"]["Id"];
            /** Format: int64 */
            quantity: number;
        };
        /** @description The body of POST /v1/shows/{id}/holds: named seats, best-available seats and general-admission places, all held or none; at least one of the three, and at most 100 seats and places in all. Best-available requests are decided in order, on the seats that are free and not yet chosen. */
        HoldBody: {
            /** @description Seats by id: each must be free (409 seats_unavailable names those that are not). */
            seats?: components["schemas"]["Id"][];
            best_available?: components["schemas"]["BestSeats"][];
            /** @description Places by area, each area once. */
            general_admission?: components["schemas"]["Places"][];
            /**
             * Format: int64
             * @description How long the hold lasts, in seconds; leave it out for the server's default (15 minutes). At most the server's longest hold (2 hours unless configured otherwise).
             */
            ttl_seconds?: number;
            metadata?: components["schemas"]["Metadata"];
            admission?: components["schemas"]["Admission"];
        } | {
            seats: components["schemas"]["Id"][];
        } | {
            best_available: components["schemas"]["BestSeats"][];
        } | {
            general_admission: components["schemas"]["Places"][];
        };
        /** @description The body of POST /v1/holds/{id}/extend. */
        ExtendBody: {
            /**
             * Format: int64
             * @description The hold lasts this long from now, in seconds, if that is within the server's longest hold (2 hours unless configured otherwise) from its creation; past it is 400 invalid.
             */
            ttl_seconds: number;
        };
        /** @enum {string} */
        HoldStatus: "held" | "confirmed" | "released" | "expired";
        /** @description Seats and places of one show, held until expires_at unless confirmed into a booking or released first. */
        Hold: {
            id: components["schemas"]["Id"];
            /** @description The show's id. */
            event_id: components["schemas"]["Id"];
            status: components["schemas"]["HoldStatus"];
            /** @description The seats held, in seat order; absent when none. */
            seats?: components["schemas"]["Id"][];
            /** @description The places held, by area; absent when none. */
            general_admission?: components["schemas"]["Places"][];
            /** @description true when best-available seats of the hold do not all sit together (a request that allowed it found no block); absent otherwise. */
            split?: boolean;
            created_at: components["schemas"]["Time"];
            expires_at: components["schemas"]["Time"];
            /** @description The booking it was confirmed into; absent until then. */
            booking_id?: components["schemas"]["Id"];
            /** @description The id of the API key that made it; absent when it was made without a key. */
            owner?: components["schemas"]["Id"];
            /**
             * Format: int64
             * @description 1 when made, one more at each extension and at its end.
             */
            version: number;
            metadata?: components["schemas"]["Metadata"];
        };
        /** @enum {string} */
        BookingStatus: "booked" | "cancelled";
        /** @description A confirmed hold: its seats and places are sold until it is cancelled. */
        Booking: {
            id: components["schemas"]["Id"];
            /** @description The show's id. */
            event_id: components["schemas"]["Id"];
            /** @description The hold it confirmed. */
            hold_id: components["schemas"]["Id"];
            status: components["schemas"]["BookingStatus"];
            /** @description The seats booked, in seat order; absent when none. */
            seats?: components["schemas"]["Id"][];
            /** @description The places booked, by area; absent when none. */
            general_admission?: components["schemas"]["Places"][];
            created_at: components["schemas"]["Time"];
            /** @description The id of the API key that made the hold; absent when it was made without a key. */
            owner?: components["schemas"]["Id"];
            metadata?: components["schemas"]["Metadata"];
        };
        /**
         * @description Where a payment is, as the payment system reports it (modelled on Stripe's PaymentIntent). It starts pending; then processing while the payment system works, authorized when it holds the money to be captured; it ends succeeded or captured (then perhaps refunded), failed or cancelled. The moves allowed: pending → processing, authorized, succeeded, failed or cancelled; processing → authorized, succeeded or failed; authorized → captured, cancelled or failed; succeeded and captured → refunded. failed, cancelled and refunded are final.
         * @enum {string}
         */
        PaymentStatus: "pending" | "processing" | "authorized" | "succeeded" | "captured" | "failed" | "cancelled" | "refunded";
        /**
         * @description What a payment did to what it pays for: confirmed, its reservation or hold became order_id or booking_id (for an order, order_id is the order); released, it failed or was cancelled and its reservation or hold was released, or the order cancelled; reordered, it settled after its reservation or hold had lapsed (at expires_at, its payment not in flight then; whether or not the sweeper had run, so the outcome agrees with what a read showed), and the same stock or seats were taken again, into order_id or booking_id; needs_refund, it settled after they had lapsed and were gone: nothing was sold twice, and the money must go back.
         * @enum {string}
         */
        PaymentResolution: "confirmed" | "released" | "reordered" | "needs_refund";
        /** @enum {string} */
        PaymentTargetKind: "reservation" | "hold" | "order";
        /** @description The one reservation, hold or order a payment pays for. Each has one payment at most. */
        PaymentTarget: {
            kind: components["schemas"]["PaymentTargetKind"];
            /** @description The id of the reservation, hold or order. */
            id: components["schemas"]["Id"];
        };
        /**
         * Format: int64
         * @description An amount in the currency's minor units (cents): 1 to 10^15. stockade keeps no prices: it is recorded as given.
         */
        Amount: number;
        /**
         * @description An ISO 4217 currency code: three capital letters.
         * @example EUR
         */
        Currency: string;
        /** @description The payment webhook's answer: the payment, and why the outcome was ignored if it was. */
        WebhookAnswer: {
            /** @description Present when the outcome changed nothing because it contradicts what the payment system reported before (failed after succeeded): why, naming the payment's status. The payment's history records it. */
            ignored_outcome?: string;
        } & components["schemas"]["Payment"];
        /** @description The payment of one reservation, hold or order, as the payment system reports it, and what it did to what it pays for. */
        Payment: {
            id: components["schemas"]["Id"];
            target: components["schemas"]["PaymentTarget"];
            amount: components["schemas"]["Amount"];
            currency: components["schemas"]["Currency"];
            status: components["schemas"]["PaymentStatus"];
            created_at: components["schemas"]["Time"];
            /** @description When it last changed. */
            updated_at: components["schemas"]["Time"];
            /** @description What it did to what it pays for; absent until that is settled. */
            resolution?: components["schemas"]["PaymentResolution"];
            /** @description The order its reservation became (or was taken again as), or the order it pays for; absent otherwise. */
            order_id?: components["schemas"]["Id"];
            /** @description The booking its hold became, or was taken again as; absent otherwise. */
            booking_id?: components["schemas"]["Id"];
            /** @description When it was found still processing or authorized after its reservation or hold lapsed and the grace period ran out: the reservation or hold is kept, for a person or a late outcome to settle. Absent if it never was; it stays once set (the payment is stuck while it has no resolution). */
            stuck_at?: components["schemas"]["Time"];
            /**
             * Format: int64
             * @description 1 when created, one more at each change.
             */
            version: number;
            /** @description The id of the API key that made what it pays for; absent when that was made without a key. */
            owner?: components["schemas"]["Id"];
            metadata?: components["schemas"]["Metadata"];
        };
        /** @description A page of payments, newest first. */
        PaymentPage: {
            payments: components["schemas"]["Payment"][];
            next_cursor?: components["schemas"]["NextCursor"];
        };
        /** @description A change of a payment, as its history keeps it: a move of its status (from → to), or, with from equal to to, a change of its resolution or its being found stuck. */
        PaymentChange: {
            payment_id: components["schemas"]["Id"];
            from: components["schemas"]["PaymentStatus"];
            to: components["schemas"]["PaymentStatus"];
            /** @description The resolution the change settled; absent when it settled none. */
            resolution?: components["schemas"]["PaymentResolution"];
            at: components["schemas"]["Time"];
            /** @description Who made the change: the name of the API key, or where an outcome came from (webhook); absent when the service itself made it (the sweeper). */
            actor?: components["schemas"]["Id"];
            /** @description Why, as the caller or the payment system said, or the service. */
            reason?: components["schemas"]["Text"];
        };
        /** @description Every change of a payment, oldest first. A payment that has not moved since it was created has none. */
        PaymentHistory: {
            changes: components["schemas"]["PaymentChange"][];
        };
        /** @description The body of POST /v1/payments. */
        PaymentBody: {
            target: components["schemas"]["PaymentTarget"];
            amount: components["schemas"]["Amount"];
            currency: components["schemas"]["Currency"];
            metadata?: components["schemas"]["Metadata"];
        };
        /** @description The body of POST /v1/payments/{id}/cancel, which may be left out. */
        CancelPaymentBody: {
            /** @description Why, for the history. */
            reason?: components["schemas"]["Text"];
        };
        /** @description The body of POST /v1/payments/{id}/outcomes: an outcome of the payment in the path. */
        OutcomeBody: {
            /** @description The id of the report: an outcome whose event_id was applied before changes nothing. */
            event_id: components["schemas"]["Id"];
            /** @description The payment's status as the payment system reports it: any but pending. */
            status: components["schemas"]["PaymentStatus"];
            /** @description Why, for the history. */
            reason?: components["schemas"]["Text"];
        };
        /** @description What a payment system reports of a payment, signed (the webhookSignature scheme). */
        WebhookOutcome: {
            /** @description The payment system's id of the report: a report delivered again under the same event_id changes nothing. */
            event_id: components["schemas"]["Id"];
            /** @description The payment, as POST /v1/payments answered it. */
            payment_id: components["schemas"]["Id"];
            /** @description The payment's status as the payment system reports it: any but pending. */
            status: components["schemas"]["PaymentStatus"];
            /** @description Why, for the history. */
            reason?: components["schemas"]["Text"];
        };
        /** @description The optional body of a cancel or a fulfilment. */
        OrderChangeBody: {
            /**
             * Format: int64
             * @description Change the order only at this version (its `version`, or the ETag of GET /v1/orders/{id}); at another, 409 version_conflict. The If-Match header says the same; given both, they must agree.
             */
            expected_version?: number;
        };
        /**
         * @description The kind of a key: a lock, a semaphore or a read-write lock, whose keys are apart.
         * @enum {string}
         */
        LockKind: "lock" | "semaphore" | "rwlock";
        /** @description One lease on a key. What the backend does not know is left out. */
        LockHolder: {
            /** @description Names the lease where the backend can; never the secret that proves ownership. */
            id?: string;
            /** @description The lease's fencing token, an unsigned 64-bit integer; absent for a permit or a shared lease. */
            token?: number;
            /** @description How many permits a semaphore's lease holds. */
            permits?: number;
            /**
             * @description A read-write lock's shared lease; absent for an exclusive one.
             * @constant
             */
            shared?: true;
            acquired_at?: components["schemas"]["Time"];
            /** @description When the lease ends unless refreshed; absent for a lease bound to a session. */
            expires_at?: components["schemas"]["Time"];
        };
        /** @description One key of one kind at the moment it was read. */
        LockState: {
            /** @description The key, as the service locks it: stockade:sku: and a SKU, stockade:event: and a show. */
            key: string;
            kind: components["schemas"]["LockKind"];
            /** @description A semaphore's number of permits; absent for other kinds. */
            limit?: number;
            /** @description The leases on the key, in the order they were granted where the backend knows it. */
            holders: components["schemas"]["LockHolder"][];
            /** @description How many callers wait for the key. */
            waiters: number;
            /** @description The waiters, first in line first, where the backend names them. */
            waiter_ids?: string[];
        };
        /** @description A page of the locks, by key and kind. */
        LockPage: {
            locks: components["schemas"]["LockState"][];
            next_cursor?: components["schemas"]["NextCursor"];
        };
        /** @description A page of holds, newest first. */
        HoldPage: {
            holds: components["schemas"]["Hold"][];
            next_cursor?: components["schemas"]["NextCursor"];
        };
        /** @description A page of bookings, newest first. */
        BookingPage: {
            bookings: components["schemas"]["Booking"][];
            next_cursor?: components["schemas"]["NextCursor"];
        };
        /** @description A page of shows, newest first: each one's head, without rows and areas (GET /v1/shows/{id} has them, with the seat counts). */
        ShowPage: {
            shows: components["schemas"]["Show"][];
            next_cursor?: components["schemas"]["NextCursor"];
        };
        /** @description A page of the stock levels at a location, in SKU order. */
        LocationStock: {
            location: components["schemas"]["Id"];
            levels: components["schemas"]["Level"][];
            next_cursor?: components["schemas"]["NextCursor"];
        };
        /** @description A shop's own data: a flat object of strings, at most 50 keys, each of 1 to 40 characters of printable ASCII without spaces, quotes, backslashes or square brackets, each value at most 500 bytes of text. Set when the reservation, order, hold or payment is made (an order or booking confirmed from one takes its metadata) and changed by a PATCH of it, returned in its views and events, and a filter of the lists (metadata[KEY]=VALUE). */
        Metadata: {
            [key: string]: string;
        };
        /** @description The event types the endpoint receives, or ["*"] alone for every type, those added later included. */
        WebhookEventTypes: string[];
        /**
         * Format: uri
         * @description An absolute http or https URL, without user or fragment. Loopback, private and link-local hosts are refused (400) unless the server allows them (serve -webhook-allow-private), and are checked again at every connection.
         */
        WebhookURL: string;
        /** @description An endpoint that receives events, without its secret. */
        WebhookEndpoint: {
            id: components["schemas"]["Id"];
            url: components["schemas"]["WebhookURL"];
            events: components["schemas"]["WebhookEventTypes"];
            description?: string;
            /** @description No deliveries while true; those pending wait, and go out once it is enabled again if their time has not run out. */
            disabled: boolean;
            /** @description Why it is disabled: by an admin, or its receiver answered 410 Gone. */
            disabled_reason?: string;
            created_at: components["schemas"]["Time"];
            updated_at: components["schemas"]["Time"];
            version: number;
            /** @description While the secret before the last rotation still signs deliveries beside the new one, when it stops. */
            previous_secret_expires_at?: components["schemas"]["Time"];
        };
        /** @description An endpoint with its signing secret: in the answers to its creation and to a rotation only. */
        NewWebhookEndpoint: {
            /** @description The secret that signs deliveries (Stockade-Signature), shown only in this answer. */
            secret: string;
        } & components["schemas"]["WebhookEndpoint"];
        WebhookEndpointBody: {
            url: components["schemas"]["WebhookURL"];
            events: components["schemas"]["WebhookEventTypes"];
            description?: string;
        };
        /** @description The fields to change; those left out are kept. */
        WebhookEndpointUpdate: {
            url?: components["schemas"]["WebhookURL"];
            events?: components["schemas"]["WebhookEventTypes"];
            description?: string;
            /** @description true disables the endpoint, false enables it (and clears disabled_reason). */
            disabled?: boolean;
        };
        RotateSecretBody: {
            /** @description How long the old secret goes on signing deliveries beside the new one; 0 or left out for 86400 (a day). */
            overlap_seconds?: number;
        };
        WebhookEndpointPage: {
            webhook_endpoints: components["schemas"]["WebhookEndpoint"][];
            next_cursor?: components["schemas"]["NextCursor"];
        };
        /**
         * @description pending: to be tried (again); succeeded: the receiver answered 2xx; failed: no more tries, until redelivered by hand.
         * @enum {string}
         */
        WebhookDeliveryStatus: "pending" | "succeeded" | "failed";
        /** @description One event on its way to one endpoint. Its id is sent as Stockade-Delivery on every attempt. */
        WebhookDelivery: {
            id: components["schemas"]["Id"];
            endpoint_id: components["schemas"]["Id"];
            event_id: components["schemas"]["Id"];
            event_type: string;
            aggregate: string;
            aggregate_id: string;
            status: components["schemas"]["WebhookDeliveryStatus"];
            /** @description Attempts begun, an attempt whose outcome was lost included. */
            attempts: number;
            /** @description When a pending delivery is tried next. */
            next_attempt_at?: components["schemas"]["Time"];
            /** @description The last time a failed attempt is followed by another. */
            retry_until: components["schemas"]["Time"];
            /** @description When the last attempt's outcome was recorded. */
            last_attempt_at?: components["schemas"]["Time"];
            /** @description The status code of the last answer; absent if none came. */
            last_code?: number;
            /** @description What went wrong in the last attempt. */
            last_error?: string;
            created_at: components["schemas"]["Time"];
            version: number;
        };
        WebhookDeliveryPage: {
            deliveries: components["schemas"]["WebhookDelivery"][];
            next_cursor?: components["schemas"]["NextCursor"];
        };
        /** @description An update of an aggregate's metadata, merged into what it has: a key with a value sets it, a key with the empty string removes it, keys left out stay. At least one key; the result holds at most 50. */
        UpdateBody: {
            /** @description The keys to set, or to remove with "". Keys and values as in Metadata. */
            metadata: {
                [key: string]: string;
            };
        };
        /**
         * @description The order in which a room admits its visitors: arrival, in the order they joined; random_at_opening, those who joined before the room opened in an order drawn at opening (coming a second early gains nothing), then the later ones in arrival order.
         * @enum {string}
         */
        RoomOrder: "arrival" | "random_at_opening";
        /**
         * @description scheduled: not open yet; visitors join, no one is admitted, and holds need an admission. queueing: open; visitors join and are admitted, and holds need an admission. sold_out: nothing was free and nothing held; the room stopped queueing, its visitors were told, and anyone may buy what comes back. closed: an admin closed it; anyone may buy, as without a room.
         * @enum {string}
         */
        RoomStatus: "scheduled" | "queueing" | "sold_out" | "closed";
        /** @description What the room's show or SKUs have left: the seats, places or units free, and those held by live holds or reservations. */
        RoomStock: {
            /** Format: int64 */
            free: number;
            /** Format: int64 */
            held: number;
        };
        /** @description A waiting room in front of a show or SKUs, without its secret. */
        Room: {
            id: components["schemas"]["Id"];
            /** @description The show the room stands in front of; absent for a room in front of SKUs. */
            show_id?: components["schemas"]["SeatName"];
            /** @description The SKUs the room stands in front of; absent for a room in front of a show. */
            skus?: components["schemas"]["Id"][];
            /** @description When admission starts. */
            opens_at: components["schemas"]["Time"];
            /**
             * Format: int64
             * @description The most admissions in force at once.
             */
            active_limit: number;
            /**
             * Format: int64
             * @description The most visitors admitted a minute.
             */
            admit_per_minute: number;
            /**
             * Format: int64
             * @description How long an admission lasts, in seconds.
             */
            admission_ttl_seconds: number;
            order: components["schemas"]["RoomOrder"];
            /**
             * Format: int64
             * @description The most seats or units one visitor is expected to take.
             */
            per_visitor: number;
            /** @description How far the room admits beyond the stock: it admits a visitor only while the visitors admitted and yet to hold, this one included, times per_visitor, are at most the stock free times stock_factor. */
            stock_factor: number;
            status: components["schemas"]["RoomStatus"];
            /** @description The visitors who took a place. */
            joined: components["schemas"]["Count"];
            /** @description The visitors admitted so far: places 1 to admitted of the order. */
            admitted: components["schemas"]["Count"];
            /**
             * @description Why the room, open, admits no one at the moment: active_limit admissions are in force, or the stock left is promised to the visitors admitted; absent otherwise.
             * @enum {string}
             */
            paused?: "active_limit" | "stock";
            /** @description When the room found the stock gone; absent unless it did. */
            sold_out_at?: components["schemas"]["Time"];
            metadata?: components["schemas"]["Metadata"];
            created_at: components["schemas"]["Time"];
            updated_at: components["schemas"]["Time"];
            /**
             * Format: int64
             * @description 1 when created, one more at each change.
             */
            version: number;
            /** @description The admissions in force. */
            active: components["schemas"]["Count"];
            /** @description The visitors waiting to be admitted. */
            queued: components["schemas"]["Count"];
            /**
             * Format: int64
             * @description The estimated wait of the last visitor in the queue, in seconds; 0 when none waits or the room does not queue.
             */
            longest_wait_seconds: number;
            stock: components["schemas"]["RoomStock"];
        };
        /** @description A room with the secret that signs its admission tokens: in the answer to its creation only. */
        NewRoom: {
            /** @description The key of the HMAC-SHA256 that signs the room's admission tokens, shown only in this answer. */
            secret: string;
        } & components["schemas"]["Room"];
        /** @description The body of POST /v1/rooms: a room in front of one show or of 1 to 100 SKUs, not both. Fields left out take their defaults. */
        RoomBody: {
            id: components["schemas"]["Id"];
            /** @description The show to stand in front of (404 if there is none). */
            show_id?: components["schemas"]["SeatName"];
            /** @description The SKUs to stand in front of, each named once. */
            skus?: components["schemas"]["Id"][];
            /** @description When admission starts, at most 366 days ahead; left out or past, now. Visitors may join before. */
            opens_at?: components["schemas"]["Time"];
            /**
             * Format: int64
             * @description The most admissions in force at once.
             */
            active_limit: number;
            /**
             * Format: int64
             * @description The most visitors admitted a minute; a room that admitted no one for a while admits up to ten seconds' worth at once.
             */
            admit_per_minute: number;
            /**
             * Format: int64
             * @description How long an admission lasts, in seconds; leave it out for 600.
             */
            admission_ttl_seconds?: number;
            /** @description Leave it out for arrival. */
            order?: components["schemas"]["RoomOrder"];
            /**
             * Format: int64
             * @description The most seats or units one visitor is expected to take; leave it out for 1.
             */
            per_visitor?: number;
            /** @description How far the room may admit beyond the stock (1: exactly the stock; 2: twice as many visitors, for a sale where many leave without buying); leave it out for 1. */
            stock_factor?: number;
            metadata?: components["schemas"]["Metadata"];
        } | {
            show_id: components["schemas"]["SeatName"];
        } | {
            skus: components["schemas"]["Id"][];
        };
        /** @description The body of PATCH /v1/rooms/{id}: the fields to change; those left out are kept. */
        RoomUpdate: {
            /** @description A new opening, for a room that has not opened. */
            opens_at?: components["schemas"]["Time"];
            /** Format: int64 */
            active_limit?: number;
            /** Format: int64 */
            admit_per_minute?: number;
            /**
             * Format: int64
             * @description For admissions made from now on.
             */
            admission_ttl_seconds?: number;
            /** @description A new order, for a room that has not opened; with visitors queued, only with reorder. */
            order?: components["schemas"]["RoomOrder"];
            /** Format: int64 */
            per_visitor?: number;
            stock_factor?: number;
            /**
             * @description closed closes the room; queueing opens again a room that is closed or sold out (scheduled again if its opening is still to come).
             * @enum {string}
             */
            status?: "closed" | "queueing";
            /** @description Allows a change that reorders the visitors already queued: a new order, or a new opens_at of a random_at_opening room that visitors joined. */
            reorder?: boolean;
            /**
             * Format: int64
             * @description Change the room only at this version; at another, 409 version_conflict.
             */
            expected_version?: number;
            /** @description The room's metadata, replaced as a whole by this object ({} removes it all). */
            metadata?: components["schemas"]["Metadata"];
        };
        RoomPage: {
            rooms: components["schemas"]["Room"][];
            next_cursor?: components["schemas"]["NextCursor"];
        };
        /** @description The body of POST /v1/rooms/{id}/visitors. */
        JoinBody: {
            /** @description The shop's id of the visitor: a session or a customer, one place each. */
            visitor_id: components["schemas"]["Id"];
        };
        /**
         * @description waiting: in the queue, or waiting for the room to open. admitted: with a token in force. expired: admitted once, the admission has run out. sold_out: the sale sold out before the visitor was served. closed: the room closed; the visitor may buy without it.
         * @enum {string}
         */
        TicketStatus: "waiting" | "admitted" | "expired" | "sold_out" | "closed";
        /** @description A visitor's place in a room. */
        RoomTicket: {
            room_id: components["schemas"]["Id"];
            visitor_id: components["schemas"]["Id"];
            status: components["schemas"]["TicketStatus"];
            /**
             * Format: int64
             * @description The visitor's place in the order; absent while the draw at opening of a random_at_opening room is to come.
             */
            position?: number;
            /**
             * Format: int64
             * @description How many visitors before this one are not admitted yet (while the draw is to come, all the others).
             */
            ahead: number;
            /**
             * Format: int64
             * @description How long until the visitor is admitted at the room's rate, the time to its opening included, in seconds; 0 unless waiting.
             */
            estimated_wait_seconds: number;
            /** @description Once admitted, until expires_at: the admission token, which the admission of a hold, reservation or checkout carries. adm1.<payload>.<signature>: the payload is the JSON object {room, visitor, position, exp (Unix seconds)}, the signature the HMAC-SHA256, keyed with the room's secret, of "adm1." and the payload, both unpadded base64url; a shop's front end can check it with the secret. */
            token?: string;
            /** @description When the admission ends (admitted) or ended (expired); absent otherwise. */
            expires_at?: components["schemas"]["Time"];
            joined_at: components["schemas"]["Time"];
            /** @description When the room opens. */
            opens_at: components["schemas"]["Time"];
        };
        /** @description The admission a hold, reservation or checkout carries through a waiting room: the visitor and the token of its ticket, which must be in force, signed for this room and this visitor. Left out for none. */
        Admission: {
            visitor_id: components["schemas"]["Id"];
            /** @description The token of the visitor's ticket (GET /v1/rooms/{id}/visitors/{visitor}). */
            token: string;
        };
    };
    responses: {
        /** @description invalid: the request is malformed or out of range (JSON syntax, types, unknown, repeated or wrongly cased keys, required fields, limits, query parameters, path values, the Idempotency-Key header). detail names the field. */
        BadRequest: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem400"];
            };
        };
        /** @description unauthenticated: no API key, or one that is malformed, unknown or revoked. */
        Unauthenticated: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                "WWW-Authenticate": components["headers"]["WWWAuthenticate"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem401"];
            };
        };
        /** @description unauthenticated: the Stockade-Signature header is missing or malformed, no v1 signature matches the body with a secret of the server, or its time t is outside the server's tolerance (stale). */
        WebhookUnauthenticated: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                "WWW-Authenticate": components["headers"]["WebhookChallenge"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem401"];
            };
        };
        /** @description forbidden: the key's role may not make this call; admission_required: a hold, reservation or checkout of what a scheduled or queueing waiting room stands in front of, without an admission (detail names the room to join); admission_invalid: its admission's token is forged, expired, or for another visitor or room, as detail says. */
        Forbidden: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem403"];
            };
        };
        /** @description not_found: no such resource, or one a storefront key did not create. */
        NotFound: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem404"];
            };
        };
        /** @description invalid: the path exists, the method does not; Allow lists those that do. Any path answers it to an unknown method. */
        MethodNotAllowed: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                Allow: components["headers"]["Allow"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem405"];
            };
        };
        /** @description insufficient_stock: not enough available (the only refusal a busy server gives, never "busy"); version_conflict: the level is not at expected_version; invalid_state: the resource's status does not allow the request, named in detail; seats_unavailable: named seats are not free, named in detail; sold_out: no free seats or places meet the hold (a category, a section, seats side by side, an area), as detail says, or the waiting room a visitor joins sold out; payment_exists: the reservation, hold or order has a payment already, named in detail; payment_in_flight: the reservation or hold cannot be released while its payment, named in detail, is processing or authorized. */
        Conflict: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem409"];
            };
        };
        /** @description reservation_expired: the reservation's hold has lapsed; hold_expired: the hold of seats has lapsed. */
        Gone: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem410"];
            };
        };
        /** @description invalid: the body is larger than the server's limit (1 MiB unless configured otherwise). */
        PayloadTooLarge: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem413"];
            };
        };
        /** @description invalid: a body whose Content-Type is neither application/json nor another +json type. A missing Content-Type is taken as JSON. */
        UnsupportedMediaType: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem415"];
            };
        };
        /** @description idempotency_mismatch: the Idempotency-Key was used for another request (another method, path or body). */
        IdempotencyMismatch: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem422"];
            };
        };
        /** @description rate_limited: the key is over its request rate; retry after Retry-After seconds. */
        RateLimited: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                "Retry-After": components["headers"]["RetryAfter"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem429"];
            };
        };
        /** @description internal: a failure the server does not explain; it is logged with the request id. */
        Internal: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem500"];
            };
        };
        /** @description unavailable: a dependency is down, or the request did not finish in time; retry. */
        Unavailable: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem503"];
            };
        };
    };
    parameters: {
        /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
        XRequestId: string;
        /** @description Makes the request safe to retry: the first success under the key is stored with its effect, and a request with the same key, method, path and body gets it again (status and bytes) with Idempotent-Replayed: true; another request under the key is 422 idempotency_mismatch. Refusals are not stored. Keys are scoped to the API key and kept 24 hours. 1 to 128 printable ASCII characters, given once. */
        IdempotencyKey: string;
        /** @description The next_cursor of the page before; leave it out for the first page. Opaque: only a cursor the service gave out (unpadded base64url), with the filters of the page that gave it, is accepted. */
        Cursor: components["schemas"]["NextCursor"];
        /** @description Checked as on every mutating request (1 to 128 printable ASCII characters, given once), but nothing is stored under it: the operation is idempotent by itself. */
        IdempotencyKeyChecked: string;
        /** @description The location's id. */
        LocationId: components["schemas"]["Id"];
        /** @description The SKU. */
        SKU: components["schemas"]["Id"];
        /** @description The location's id. */
        StockLocationId: components["schemas"]["Id"];
        /** @description The reservation's id. */
        ReservationId: components["schemas"]["Id"];
        /** @description The order's id. */
        OrderId: components["schemas"]["Id"];
        /** @description The key's id. */
        KeyId: components["schemas"]["Id"];
        /** @description The most locations in the page: 1 to 1000; 100 when left out. */
        LocationLimit: number;
        /** @description The most SKUs in the page: 1 to 1000; 100 when left out. */
        SKULimit: number;
        /** @description The most rows in the page: 1 to 10000; 1000 when left out. */
        MovementLimit: number;
        /** @description The most keys in the page: 1 to 1000; 100 when left out. */
        KeyLimit: number;
        /** @description The most reservations in the page: 1 to 1000; 100 when left out. */
        ReservationLimit: number;
        /** @description The most orders in the page: 1 to 1000; 100 when left out. */
        OrderLimit: number;
        /** @description The most shipments in the page: 1 to 1000; 100 when left out. */
        ShipmentLimit: number;
        /** @description Keep those created at or after this RFC 3339 time. */
        CreatedAfter: string;
        /** @description Keep those created strictly before this RFC 3339 time; it must be later than created_after. */
        CreatedBefore: string;
        /** @description The show's id. */
        ShowId: components["schemas"]["SeatName"];
        /** @description The hold's id. */
        HoldId: components["schemas"]["Id"];
        /** @description The booking's id. */
        BookingId: components["schemas"]["Id"];
        /** @description The most seats in the page: 1 to 10000; 1000 when left out. */
        SeatLimit: number;
        /** @description The most rows in the page: 1 to 10000; 1000 when left out. */
        SeatHistoryLimit: number;
        /** @description Keep the seats in this status. */
        SeatStatusFilter: components["schemas"]["SeatStatus"];
        /** @description Keep the seats of this section. */
        SectionFilter: components["schemas"]["SeatName"];
        /** @description Keep the rows of this seat, by its id (SECTION/ROW/NUMBER). */
        SeatFilter: components["schemas"]["Id"];
        /** @description Keep the rows of this general-admission area. Not with seat. */
        AreaFilter: components["schemas"]["Id"];
        /** @description The payment's id. */
        PaymentId: components["schemas"]["Id"];
        /** @description The most payments in the page: 1 to 1000; 100 when left out. */
        PaymentLimit: number;
        /** @description The order's version in quotes, such as "1", as its ETag gives it: change the order only at that version (409 version_conflict otherwise). One entity tag; `*` and weak tags are refused with 400. */
        IfMatchOrder: string;
        /** @description The most keys in the page: 1 to 1000; 100 when left out. */
        LockLimit: number;
        /** @description The most holds in the page: 1 to 1000; 100 when left out. */
        HoldLimit: number;
        /** @description The most bookings in the page: 1 to 1000; 100 when left out. */
        BookingLimit: number;
        /** @description The most shows in the page: 1 to 1000; 100 when left out. */
        ShowLimit: number;
        /** @description Keep those whose metadata holds every given key with its value: metadata[cart]=c_42. */
        MetadataFilter: components["schemas"]["Metadata"];
        /** @description The webhook endpoint's id. */
        WebhookEndpointId: components["schemas"]["Id"];
        /** @description The delivery's id. */
        WebhookDeliveryId: components["schemas"]["Id"];
        /** @description The most items in the page: 1 to 1000; 100 when left out. */
        WebhookLimit: number;
        /** @description Only the deliveries in this status. */
        WebhookDeliveryStatusFilter: components["schemas"]["WebhookDeliveryStatus"];
        /** @description The room's id. */
        RoomId: components["schemas"]["Id"];
        /** @description The visitor's id, as it joined. */
        VisitorId: components["schemas"]["Id"];
        /** @description The most rooms in the page: 1 to 1000; 100 when left out. */
        RoomLimit: number;
    };
    requestBodies: never;
    headers: {
        /** @description The request's id: the client's X-Request-Id if it was 1 to 128 printable ASCII characters, else a new random one. Log lines about the request carry it. */
        XRequestId: string;
        /** @description Present, as true, on an answer replayed from the store for a repeated Idempotency-Key: the first answer's status and the same bytes. */
        IdempotentReplayed: "true";
        /** @description The scheme to authenticate with: Bearer, with a realm and an error. */
        WWWAuthenticate: string;
        /** @description Seconds to wait before the next request with this key. */
        RetryAfter: number;
        /** @description The methods the path answers. */
        Allow: string;
        /** @description The document's entity tag, for If-None-Match. */
        ETag: string;
        /** @description How the document may be cached. */
        CacheControl: string;
        /** @description The scheme the payment webhook takes instead of an API key: Stockade-Signature. */
        WebhookChallenge: string;
        /** @description The order's version in quotes: the If-Match of a change of it. */
        OrderETag: string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    listLocations: {
        parameters: {
            query?: {
                /** @description The next_cursor of the page before; leave it out for the first page. Opaque: only a cursor the service gave out (unpadded base64url), with the filters of the page that gave it, is accepted. */
                cursor?: components["parameters"]["Cursor"];
                /** @description The most locations in the page: 1 to 1000; 100 when left out. */
                limit?: components["parameters"]["LocationLimit"];
            };
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of locations. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LocationPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    getLocation: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                /** @description The location's id. */
                id: components["parameters"]["LocationId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The location. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Location"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    putLocation: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
                /** @description Makes the request safe to retry: the first success under the key is stored with its effect, and a request with the same key, method, path and body gets it again (status and bytes) with Idempotent-Replayed: true; another request under the key is 422 idempotency_mismatch. Refusals are not stored. Keys are scoped to the API key and kept 24 hours. 1 to 128 printable ASCII characters, given once. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description The location's id. */
                id: components["parameters"]["LocationId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["LocationBody"];
            };
        };
        responses: {
            /** @description The location as stored. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Location"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyMismatch"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    getLocationStock: {
        parameters: {
            query?: {
                /** @description Keep the SKUs that start with it. */
                prefix?: components["schemas"]["Id"];
                /** @description The next_cursor of the page before; leave it out for the first page. Opaque: only a cursor the service gave out (unpadded base64url), with the filters of the page that gave it, is accepted. */
                cursor?: components["parameters"]["Cursor"];
                /** @description The most SKUs in the page: 1 to 1000; 100 when left out. */
                limit?: components["parameters"]["SKULimit"];
            };
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                /** @description The location's id. */
                id: components["parameters"]["LocationId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the location's levels. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LocationStock"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    listSKUs: {
        parameters: {
            query?: {
                /** @description Keep the SKUs that start with it. */
                prefix?: components["schemas"]["Id"];
                /** @description The next_cursor of the page before; leave it out for the first page. Opaque: only a cursor the service gave out (unpadded base64url), with the filters of the page that gave it, is accepted. */
                cursor?: components["parameters"]["Cursor"];
                /** @description The most SKUs in the page: 1 to 1000; 100 when left out. */
                limit?: components["parameters"]["SKULimit"];
            };
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of SKUs. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SKUPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    getStock: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                /** @description The SKU. */
                sku: components["parameters"]["SKU"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The stock. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Stock"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    setStock: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
                /** @description Makes the request safe to retry: the first success under the key is stored with its effect, and a request with the same key, method, path and body gets it again (status and bytes) with Idempotent-Replayed: true; another request under the key is 422 idempotency_mismatch. Refusals are not stored. Keys are scoped to the API key and kept 24 hours. 1 to 128 printable ASCII characters, given once. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description The SKU. */
                sku: components["parameters"]["SKU"];
                /** @description The location's id. */
                location: components["parameters"]["StockLocationId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SetStockBody"];
            };
        };
        responses: {
            /** @description The level. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Level"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyMismatch"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    adjustStock: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
                /** @description Makes the request safe to retry: the first success under the key is stored with its effect, and a request with the same key, method, path and body gets it again (status and bytes) with Idempotent-Replayed: true; another request under the key is 422 idempotency_mismatch. Refusals are not stored. Keys are scoped to the API key and kept 24 hours. 1 to 128 printable ASCII characters, given once. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description The SKU. */
                sku: components["parameters"]["SKU"];
                /** @description The location's id. */
                location: components["parameters"]["StockLocationId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AdjustBody"];
            };
        };
        responses: {
            /** @description The level. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Level"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyMismatch"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    listReservations: {
        parameters: {
            query?: {
                /** @description Keep those with this status. */
                status?: components["schemas"]["ReservationStatus"];
                /** @description Keep those created at or after this RFC 3339 time. */
                created_after?: components["parameters"]["CreatedAfter"];
                /** @description Keep those created strictly before this RFC 3339 time; it must be later than created_after. */
                created_before?: components["parameters"]["CreatedBefore"];
                /** @description Keep those whose metadata holds every given key with its value: metadata[cart]=c_42. */
                metadata?: components["parameters"]["MetadataFilter"];
                /** @description The next_cursor of the page before; leave it out for the first page. Opaque: only a cursor the service gave out (unpadded base64url), with the filters of the page that gave it, is accepted. */
                cursor?: components["parameters"]["Cursor"];
                /** @description The most reservations in the page: 1 to 1000; 100 when left out. */
                limit?: components["parameters"]["ReservationLimit"];
            };
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of reservations. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReservationPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    reserve: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
                /** @description Makes the request safe to retry: the first success under the key is stored with its effect, and a request with the same key, method, path and body gets it again (status and bytes) with Idempotent-Replayed: true; another request under the key is 422 idempotency_mismatch. Refusals are not stored. Keys are scoped to the API key and kept 24 hours. 1 to 128 printable ASCII characters, given once. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ReserveBody"];
            };
        };
        responses: {
            /** @description The reservation, held. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Reservation"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyMismatch"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    getReservation: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                /** @description The reservation's id. */
                id: components["parameters"]["ReservationId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The reservation. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Reservation"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    releaseReservation: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
                /** @description Makes the request safe to retry: the first success under the key is stored with its effect, and a request with the same key, method, path and body gets it again (status and bytes) with Idempotent-Replayed: true; another request under the key is 422 idempotency_mismatch. Refusals are not stored. Keys are scoped to the API key and kept 24 hours. 1 to 128 printable ASCII characters, given once. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description The reservation's id. */
                id: components["parameters"]["ReservationId"];
            };
            cookie?: never;
        };
        /** @description None, or {}. */
        requestBody?: {
            content: {
                "application/json": components["schemas"]["EmptyBody"];
            };
        };
        responses: {
            /** @description The reservation, released (or as it was). */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Reservation"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyMismatch"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    updateReservation: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
                /** @description Makes the request safe to retry: the first success under the key is stored with its effect, and a request with the same key, method, path and body gets it again (status and bytes) with Idempotent-Replayed: true; another request under the key is 422 idempotency_mismatch. Refusals are not stored. Keys are scoped to the API key and kept 24 hours. 1 to 128 printable ASCII characters, given once. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description The reservation's id. */
                id: components["parameters"]["ReservationId"];
            };
            cookie?: never;
        };
        /** @description {metadata}: the keys to set, or to remove with "". */
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateBody"];
            };
        };
        responses: {
            /** @description The reservation, with its metadata merged. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Reservation"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyMismatch"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    confirmReservation: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
                /** @description Makes the request safe to retry: the first success under the key is stored with its effect, and a request with the same key, method, path and body gets it again (status and bytes) with Idempotent-Replayed: true; another request under the key is 422 idempotency_mismatch. Refusals are not stored. Keys are scoped to the API key and kept 24 hours. 1 to 128 printable ASCII characters, given once. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description The reservation's id. */
                id: components["parameters"]["ReservationId"];
            };
            cookie?: never;
        };
        /** @description None, or {}. */
        requestBody?: {
            content: {
                "application/json": components["schemas"]["EmptyBody"];
            };
        };
        responses: {
            /** @description The order. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Order"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            410: components["responses"]["Gone"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyMismatch"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    listOrders: {
        parameters: {
            query?: {
                /** @description Keep those with this status. */
                status?: components["schemas"]["OrderStatus"];
                /** @description Keep those created at or after this RFC 3339 time. */
                created_after?: components["parameters"]["CreatedAfter"];
                /** @description Keep those created strictly before this RFC 3339 time; it must be later than created_after. */
                created_before?: components["parameters"]["CreatedBefore"];
                /** @description Keep those whose metadata holds every given key with its value: metadata[cart]=c_42. */
                metadata?: components["parameters"]["MetadataFilter"];
                /** @description The next_cursor of the page before; leave it out for the first page. Opaque: only a cursor the service gave out (unpadded base64url), with the filters of the page that gave it, is accepted. */
                cursor?: components["parameters"]["Cursor"];
                /** @description The most orders in the page: 1 to 1000; 100 when left out. */
                limit?: components["parameters"]["OrderLimit"];
            };
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the orders that match, newest first. Following next_cursor reads every order that matched when the walk began, once. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrderPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    checkout: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
                /** @description Makes the request safe to retry: the first success under the key is stored with its effect, and a request with the same key, method, path and body gets it again (status and bytes) with Idempotent-Replayed: true; another request under the key is 422 idempotency_mismatch. Refusals are not stored. Keys are scoped to the API key and kept 24 hours. 1 to 128 printable ASCII characters, given once. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ReserveBody"];
            };
        };
        responses: {
            /** @description The order, committed. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Order"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyMismatch"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    getOrder: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                /** @description The order's id. */
                id: components["parameters"]["OrderId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The order. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    ETag: components["headers"]["OrderETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Order"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    updateOrder: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
                /** @description Makes the request safe to retry: the first success under the key is stored with its effect, and a request with the same key, method, path and body gets it again (status and bytes) with Idempotent-Replayed: true; another request under the key is 422 idempotency_mismatch. Refusals are not stored. Keys are scoped to the API key and kept 24 hours. 1 to 128 printable ASCII characters, given once. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description The order's id. */
                id: components["parameters"]["OrderId"];
            };
            cookie?: never;
        };
        /** @description {metadata}: the keys to set, or to remove with "". */
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateBody"];
            };
        };
        responses: {
            /** @description The order, with its metadata merged. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    ETag: components["headers"]["OrderETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Order"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyMismatch"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    cancelOrder: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
                /** @description Makes the request safe to retry: the first success under the key is stored with its effect, and a request with the same key, method, path and body gets it again (status and bytes) with Idempotent-Replayed: true; another request under the key is 422 idempotency_mismatch. Refusals are not stored. Keys are scoped to the API key and kept 24 hours. 1 to 128 printable ASCII characters, given once. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /** @description The order's version in quotes, such as "1", as its ETag gives it: change the order only at that version (409 version_conflict otherwise). One entity tag; `*` and weak tags are refused with 400. */
                "If-Match"?: components["parameters"]["IfMatchOrder"];
            };
            path: {
                /** @description The order's id. */
                id: components["parameters"]["OrderId"];
            };
            cookie?: never;
        };
        /** @description None, {}, or {expected_version}. */
        requestBody?: {
            content: {
                "application/json": components["schemas"]["OrderChangeBody"];
            };
        };
        responses: {
            /** @description The order, cancelled. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    ETag: components["headers"]["OrderETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Order"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyMismatch"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    fulfillOrder: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
                /** @description Makes the request safe to retry: the first success under the key is stored with its effect, and a request with the same key, method, path and body gets it again (status and bytes) with Idempotent-Replayed: true; another request under the key is 422 idempotency_mismatch. Refusals are not stored. Keys are scoped to the API key and kept 24 hours. 1 to 128 printable ASCII characters, given once. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /** @description The order's version in quotes, such as "1", as its ETag gives it: change the order only at that version (409 version_conflict otherwise). One entity tag; `*` and weak tags are refused with 400. */
                "If-Match"?: components["parameters"]["IfMatchOrder"];
            };
            path: {
                /** @description The order's id. */
                id: components["parameters"]["OrderId"];
            };
            cookie?: never;
        };
        /** @description None, {}, or {expected_version}. */
        requestBody?: {
            content: {
                "application/json": components["schemas"]["OrderChangeBody"];
            };
        };
        responses: {
            /** @description The order, fulfilled. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    ETag: components["headers"]["OrderETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Order"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyMismatch"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    listShipments: {
        parameters: {
            query?: {
                /** @description The next_cursor of the page before; leave it out for the first page. Opaque: only a cursor the service gave out (unpadded base64url), with the filters of the page that gave it, is accepted. */
                cursor?: components["parameters"]["Cursor"];
                /** @description The most shipments in the page: 1 to 1000; 100 when left out. */
                limit?: components["parameters"]["ShipmentLimit"];
            };
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                /** @description The order's id. */
                id: components["parameters"]["OrderId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of shipments. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ShipmentPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    shipOrder: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
                /** @description Makes the request safe to retry: the first success under the key is stored with its effect, and a request with the same key, method, path and body gets it again (status and bytes) with Idempotent-Replayed: true; another request under the key is 422 idempotency_mismatch. Refusals are not stored. Keys are scoped to the API key and kept 24 hours. 1 to 128 printable ASCII characters, given once. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /** @description The order's version in quotes, such as "1", as its ETag gives it: change the order only at that version (409 version_conflict otherwise). One entity tag; `*` and weak tags are refused with 400. */
                "If-Match"?: components["parameters"]["IfMatchOrder"];
            };
            path: {
                /** @description The order's id. */
                id: components["parameters"]["OrderId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["NewShipment"];
            };
        };
        responses: {
            /** @description The shipment, made. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Shipment"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyMismatch"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    listShows: {
        parameters: {
            query?: {
                /** @description Keep those created at or after this RFC 3339 time. */
                created_after?: components["parameters"]["CreatedAfter"];
                /** @description Keep those created strictly before this RFC 3339 time; it must be later than created_after. */
                created_before?: components["parameters"]["CreatedBefore"];
                /** @description The next_cursor of the page before; leave it out for the first page. Opaque: only a cursor the service gave out (unpadded base64url), with the filters of the page that gave it, is accepted. */
                cursor?: components["parameters"]["Cursor"];
                /** @description The most shows in the page: 1 to 1000; 100 when left out. */
                limit?: components["parameters"]["ShowLimit"];
            };
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of shows. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ShowPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    getShow: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                /** @description The show's id. */
                id: components["parameters"]["ShowId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The show with its seat counts. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ShowView"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    putShow: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
                /** @description Makes the request safe to retry: the first success under the key is stored with its effect, and a request with the same key, method, path and body gets it again (status and bytes) with Idempotent-Replayed: true; another request under the key is 422 idempotency_mismatch. Refusals are not stored. Keys are scoped to the API key and kept 24 hours. 1 to 128 printable ASCII characters, given once. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description The show's id. */
                id: components["parameters"]["ShowId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ShowBody"];
            };
        };
        responses: {
            /** @description The show as stored. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Show"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyMismatch"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    listSeats: {
        parameters: {
            query?: {
                /** @description Keep the seats in this status. */
                status?: components["parameters"]["SeatStatusFilter"];
                /** @description Keep the seats of this section. */
                section?: components["parameters"]["SectionFilter"];
                /** @description The next_cursor of the page before; leave it out for the first page. Opaque: only a cursor the service gave out (unpadded base64url), with the filters of the page that gave it, is accepted. */
                cursor?: components["parameters"]["Cursor"];
                /** @description The most seats in the page: 1 to 10000; 1000 when left out. */
                limit?: components["parameters"]["SeatLimit"];
            };
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                /** @description The show's id. */
                id: components["parameters"]["ShowId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of seats. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SeatPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    listSeatHistory: {
        parameters: {
            query?: {
                /** @description Keep the rows of this seat, by its id (SECTION/ROW/NUMBER). */
                seat?: components["parameters"]["SeatFilter"];
                /** @description Keep the rows of this general-admission area. Not with seat. */
                area?: components["parameters"]["AreaFilter"];
                /** @description The next_cursor of the page before; leave it out for the first page. Opaque: only a cursor the service gave out (unpadded base64url), with the filters of the page that gave it, is accepted. */
                cursor?: components["parameters"]["Cursor"];
                /** @description The most rows in the page: 1 to 10000; 1000 when left out. */
                limit?: components["parameters"]["SeatHistoryLimit"];
            };
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                /** @description The show's id. */
                id: components["parameters"]["ShowId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the seat history. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SeatHistoryPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    listShowHolds: {
        parameters: {
            query?: {
                /** @description Keep those with this status. */
                status?: components["schemas"]["HoldStatus"];
                /** @description Keep those created at or after this RFC 3339 time. */
                created_after?: components["parameters"]["CreatedAfter"];
                /** @description Keep those created strictly before this RFC 3339 time; it must be later than created_after. */
                created_before?: components["parameters"]["CreatedBefore"];
                /** @description Keep those whose metadata holds every given key with its value: metadata[cart]=c_42. */
                metadata?: components["parameters"]["MetadataFilter"];
                /** @description The next_cursor of the page before; leave it out for the first page. Opaque: only a cursor the service gave out (unpadded base64url), with the filters of the page that gave it, is accepted. */
                cursor?: components["parameters"]["Cursor"];
                /** @description The most holds in the page: 1 to 1000; 100 when left out. */
                limit?: components["parameters"]["HoldLimit"];
            };
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                /** @description The show's id. */
                id: components["parameters"]["ShowId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of holds. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HoldPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    holdSeats: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
                /** @description Makes the request safe to retry: the first success under the key is stored with its effect, and a request with the same key, method, path and body gets it again (status and bytes) with Idempotent-Replayed: true; another request under the key is 422 idempotency_mismatch. Refusals are not stored. Keys are scoped to the API key and kept 24 hours. 1 to 128 printable ASCII characters, given once. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description The show's id. */
                id: components["parameters"]["ShowId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["HoldBody"];
            };
        };
        responses: {
            /** @description The hold, held. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Hold"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyMismatch"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    listShowBookings: {
        parameters: {
            query?: {
                /** @description Keep those with this status. */
                status?: components["schemas"]["BookingStatus"];
                /** @description Keep those created at or after this RFC 3339 time. */
                created_after?: components["parameters"]["CreatedAfter"];
                /** @description Keep those created strictly before this RFC 3339 time; it must be later than created_after. */
                created_before?: components["parameters"]["CreatedBefore"];
                /** @description Keep those whose metadata holds every given key with its value: metadata[cart]=c_42. */
                metadata?: components["parameters"]["MetadataFilter"];
                /** @description The next_cursor of the page before; leave it out for the first page. Opaque: only a cursor the service gave out (unpadded base64url), with the filters of the page that gave it, is accepted. */
                cursor?: components["parameters"]["Cursor"];
                /** @description The most bookings in the page: 1 to 1000; 100 when left out. */
                limit?: components["parameters"]["BookingLimit"];
            };
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                /** @description The show's id. */
                id: components["parameters"]["ShowId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of bookings. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BookingPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    listHolds: {
        parameters: {
            query?: {
                /** @description Keep those with this status. */
                status?: components["schemas"]["HoldStatus"];
                /** @description Keep those created at or after this RFC 3339 time. */
                created_after?: components["parameters"]["CreatedAfter"];
                /** @description Keep those created strictly before this RFC 3339 time; it must be later than created_after. */
                created_before?: components["parameters"]["CreatedBefore"];
                /** @description Keep those whose metadata holds every given key with its value: metadata[cart]=c_42. */
                metadata?: components["parameters"]["MetadataFilter"];
                /** @description The next_cursor of the page before; leave it out for the first page. Opaque: only a cursor the service gave out (unpadded base64url), with the filters of the page that gave it, is accepted. */
                cursor?: components["parameters"]["Cursor"];
                /** @description The most holds in the page: 1 to 1000; 100 when left out. */
                limit?: components["parameters"]["HoldLimit"];
            };
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of holds. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HoldPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    getHold: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                /** @description The hold's id. */
                id: components["parameters"]["HoldId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The hold. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Hold"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    releaseHold: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
                /** @description Makes the request safe to retry: the first success under the key is stored with its effect, and a request with the same key, method, path and body gets it again (status and bytes) with Idempotent-Replayed: true; another request under the key is 422 idempotency_mismatch. Refusals are not stored. Keys are scoped to the API key and kept 24 hours. 1 to 128 printable ASCII characters, given once. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description The hold's id. */
                id: components["parameters"]["HoldId"];
            };
            cookie?: never;
        };
        /** @description None, or {}. */
        requestBody?: {
            content: {
                "application/json": components["schemas"]["EmptyBody"];
            };
        };
        responses: {
            /** @description The hold, released (or as it was). */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Hold"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyMismatch"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    updateHold: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
                /** @description Makes the request safe to retry: the first success under the key is stored with its effect, and a request with the same key, method, path and body gets it again (status and bytes) with Idempotent-Replayed: true; another request under the key is 422 idempotency_mismatch. Refusals are not stored. Keys are scoped to the API key and kept 24 hours. 1 to 128 printable ASCII characters, given once. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description The hold's id. */
                id: components["parameters"]["HoldId"];
            };
            cookie?: never;
        };
        /** @description {metadata}: the keys to set, or to remove with "". */
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateBody"];
            };
        };
        responses: {
            /** @description The hold, with its metadata merged. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Hold"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyMismatch"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    extendHold: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
                /** @description Makes the request safe to retry: the first success under the key is stored with its effect, and a request with the same key, method, path and body gets it again (status and bytes) with Idempotent-Replayed: true; another request under the key is 422 idempotency_mismatch. Refusals are not stored. Keys are scoped to the API key and kept 24 hours. 1 to 128 printable ASCII characters, given once. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description The hold's id. */
                id: components["parameters"]["HoldId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ExtendBody"];
            };
        };
        responses: {
            /** @description The hold, with its new expires_at. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Hold"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            410: components["responses"]["Gone"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyMismatch"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    confirmHold: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
                /** @description Makes the request safe to retry: the first success under the key is stored with its effect, and a request with the same key, method, path and body gets it again (status and bytes) with Idempotent-Replayed: true; another request under the key is 422 idempotency_mismatch. Refusals are not stored. Keys are scoped to the API key and kept 24 hours. 1 to 128 printable ASCII characters, given once. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description The hold's id. */
                id: components["parameters"]["HoldId"];
            };
            cookie?: never;
        };
        /** @description None, or {}. */
        requestBody?: {
            content: {
                "application/json": components["schemas"]["EmptyBody"];
            };
        };
        responses: {
            /** @description The booking. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Booking"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            410: components["responses"]["Gone"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyMismatch"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    listBookings: {
        parameters: {
            query?: {
                /** @description Keep those with this status. */
                status?: components["schemas"]["BookingStatus"];
                /** @description Keep those created at or after this RFC 3339 time. */
                created_after?: components["parameters"]["CreatedAfter"];
                /** @description Keep those created strictly before this RFC 3339 time; it must be later than created_after. */
                created_before?: components["parameters"]["CreatedBefore"];
                /** @description Keep those whose metadata holds every given key with its value: metadata[cart]=c_42. */
                metadata?: components["parameters"]["MetadataFilter"];
                /** @description The next_cursor of the page before; leave it out for the first page. Opaque: only a cursor the service gave out (unpadded base64url), with the filters of the page that gave it, is accepted. */
                cursor?: components["parameters"]["Cursor"];
                /** @description The most bookings in the page: 1 to 1000; 100 when left out. */
                limit?: components["parameters"]["BookingLimit"];
            };
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of bookings. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BookingPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    getBooking: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                /** @description The booking's id. */
                id: components["parameters"]["BookingId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The booking. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Booking"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    updateBooking: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
                /** @description Makes the request safe to retry: the first success under the key is stored with its effect, and a request with the same key, method, path and body gets it again (status and bytes) with Idempotent-Replayed: true; another request under the key is 422 idempotency_mismatch. Refusals are not stored. Keys are scoped to the API key and kept 24 hours. 1 to 128 printable ASCII characters, given once. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description The booking's id. */
                id: components["parameters"]["BookingId"];
            };
            cookie?: never;
        };
        /** @description {metadata}: the keys to set, or to remove with "". */
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateBody"];
            };
        };
        responses: {
            /** @description The booking, with its metadata merged. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Booking"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyMismatch"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    cancelBooking: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
                /** @description Makes the request safe to retry: the first success under the key is stored with its effect, and a request with the same key, method, path and body gets it again (status and bytes) with Idempotent-Replayed: true; another request under the key is 422 idempotency_mismatch. Refusals are not stored. Keys are scoped to the API key and kept 24 hours. 1 to 128 printable ASCII characters, given once. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description The booking's id. */
                id: components["parameters"]["BookingId"];
            };
            cookie?: never;
        };
        /** @description None, or {}. */
        requestBody?: {
            content: {
                "application/json": components["schemas"]["EmptyBody"];
            };
        };
        responses: {
            /** @description The booking, cancelled. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Booking"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyMismatch"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    listRooms: {
        parameters: {
            query?: {
                /** @description The next_cursor of the page before; leave it out for the first page. Opaque: only a cursor the service gave out (unpadded base64url), with the filters of the page that gave it, is accepted. */
                cursor?: components["parameters"]["Cursor"];
                /** @description The most rooms in the page: 1 to 1000; 100 when left out. */
                limit?: components["parameters"]["RoomLimit"];
            };
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of rooms. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RoomPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    createRoom: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
                /** @description Makes the request safe to retry: the first success under the key is stored with its effect, and a request with the same key, method, path and body gets it again (status and bytes) with Idempotent-Replayed: true; another request under the key is 422 idempotency_mismatch. Refusals are not stored. Keys are scoped to the API key and kept 24 hours. 1 to 128 printable ASCII characters, given once. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RoomBody"];
            };
        };
        responses: {
            /** @description The room, with its secret. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NewRoom"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyMismatch"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    getRoom: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                /** @description The room's id. */
                id: components["parameters"]["RoomId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The room. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Room"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    updateRoom: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
                /** @description Makes the request safe to retry: the first success under the key is stored with its effect, and a request with the same key, method, path and body gets it again (status and bytes) with Idempotent-Replayed: true; another request under the key is 422 idempotency_mismatch. Refusals are not stored. Keys are scoped to the API key and kept 24 hours. 1 to 128 printable ASCII characters, given once. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description The room's id. */
                id: components["parameters"]["RoomId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RoomUpdate"];
            };
        };
        responses: {
            /** @description The room, changed. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Room"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyMismatch"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    joinRoom: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
                /** @description Checked as on every mutating request (1 to 128 printable ASCII characters, given once), but nothing is stored under it: the operation is idempotent by itself. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKeyChecked"];
            };
            path: {
                /** @description The room's id. */
                id: components["parameters"]["RoomId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["JoinBody"];
            };
        };
        responses: {
            /** @description The visitor's ticket. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RoomTicket"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    getRoomTicket: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                /** @description The room's id. */
                id: components["parameters"]["RoomId"];
                /** @description The visitor's id, as it joined. */
                visitor: components["parameters"]["VisitorId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The visitor's ticket. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RoomTicket"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    leaveRoom: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
                /** @description Checked as on every mutating request (1 to 128 printable ASCII characters, given once), but nothing is stored under it: the operation is idempotent by itself. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKeyChecked"];
            };
            path: {
                /** @description The room's id. */
                id: components["parameters"]["RoomId"];
                /** @description The visitor's id, as it joined. */
                visitor: components["parameters"]["VisitorId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The visitor's ticket, expired. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RoomTicket"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    streamRoomTicket: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                /** @description The room's id. */
                id: components["parameters"]["RoomId"];
                /** @description The visitor's id, as it joined. */
                visitor: components["parameters"]["VisitorId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The stream of tickets. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    listPayments: {
        parameters: {
            query?: {
                /** @description Keep those with this status. */
                status?: components["schemas"]["PaymentStatus"];
                /** @description true keeps the payments that wait for a person: found still processing or authorized after their reservation or hold lapsed and the grace period ran out, and not resolved since. false, like leaving it out, keeps every payment. */
                stuck?: "true" | "false";
                /** @description Keep those with this resolution, or with none yet (unresolved). */
                resolution?: "unresolved" | "confirmed" | "released" | "reordered" | "needs_refund";
                /** @description Keep those whose metadata holds every given key with its value: metadata[cart]=c_42. */
                metadata?: components["parameters"]["MetadataFilter"];
                /** @description The next_cursor of the page before; leave it out for the first page. Opaque: only a cursor the service gave out (unpadded base64url), with the filters of the page that gave it, is accepted. */
                cursor?: components["parameters"]["Cursor"];
                /** @description The most payments in the page: 1 to 1000; 100 when left out. */
                limit?: components["parameters"]["PaymentLimit"];
            };
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of payments. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PaymentPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    createPayment: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
                /** @description Makes the request safe to retry: the first success under the key is stored with its effect, and a request with the same key, method, path and body gets it again (status and bytes) with Idempotent-Replayed: true; another request under the key is 422 idempotency_mismatch. Refusals are not stored. Keys are scoped to the API key and kept 24 hours. 1 to 128 printable ASCII characters, given once. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PaymentBody"];
            };
        };
        responses: {
            /** @description The payment, pending. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Payment"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            410: components["responses"]["Gone"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyMismatch"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    getPayment: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                /** @description The payment's id. */
                id: components["parameters"]["PaymentId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The payment. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Payment"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    updatePayment: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
                /** @description Makes the request safe to retry: the first success under the key is stored with its effect, and a request with the same key, method, path and body gets it again (status and bytes) with Idempotent-Replayed: true; another request under the key is 422 idempotency_mismatch. Refusals are not stored. Keys are scoped to the API key and kept 24 hours. 1 to 128 printable ASCII characters, given once. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description The payment's id. */
                id: components["parameters"]["PaymentId"];
            };
            cookie?: never;
        };
        /** @description {metadata}: the keys to set, or to remove with "". */
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateBody"];
            };
        };
        responses: {
            /** @description The payment, with its metadata merged. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Payment"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyMismatch"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    getPaymentHistory: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                /** @description The payment's id. */
                id: components["parameters"]["PaymentId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The payment's history. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PaymentHistory"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    cancelPayment: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
                /** @description Makes the request safe to retry: the first success under the key is stored with its effect, and a request with the same key, method, path and body gets it again (status and bytes) with Idempotent-Replayed: true; another request under the key is 422 idempotency_mismatch. Refusals are not stored. Keys are scoped to the API key and kept 24 hours. 1 to 128 printable ASCII characters, given once. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description The payment's id. */
                id: components["parameters"]["PaymentId"];
            };
            cookie?: never;
        };
        /** @description None, {}, or a reason. */
        requestBody?: {
            content: {
                "application/json": components["schemas"]["CancelPaymentBody"];
            };
        };
        responses: {
            /** @description The payment, cancelled (or as it was). */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Payment"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyMismatch"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    applyPaymentOutcome: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
                /** @description Checked as on every mutating request (1 to 128 printable ASCII characters, given once), but nothing is stored under it: the operation is idempotent by itself. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKeyChecked"];
            };
            path: {
                /** @description The payment's id. */
                id: components["parameters"]["PaymentId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OutcomeBody"];
            };
        };
        responses: {
            /** @description The payment, after the outcome (or as it is, if it changed nothing). */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Payment"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    paymentWebhook: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
                /** @description Checked as on every mutating request (1 to 128 printable ASCII characters, given once), but nothing is stored under it: the operation is idempotent by itself. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKeyChecked"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WebhookOutcome"];
            };
        };
        responses: {
            /** @description The payment, after the outcome (or as it is, if it changed nothing), with ignored_outcome if the outcome contradicts an earlier one. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookAnswer"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["WebhookUnauthenticated"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    listMovements: {
        parameters: {
            query?: {
                /** @description Keep the rows of this SKU. */
                sku?: components["schemas"]["Id"];
                /** @description Keep the rows of this location. */
                location?: components["schemas"]["Id"];
                /** @description Keep the rows of this reservation or order. */
                ref?: components["schemas"]["Id"];
                /** @description The next_cursor of the page before; leave it out for the first page. Opaque: only a cursor the service gave out (unpadded base64url), with the filters of the page that gave it, is accepted. */
                cursor?: components["parameters"]["Cursor"];
                /** @description The most rows in the page: 1 to 10000; 1000 when left out. */
                limit?: components["parameters"]["MovementLimit"];
            };
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the ledger. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MovementPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    listKeys: {
        parameters: {
            query?: {
                /** @description The next_cursor of the page before; leave it out for the first page. Opaque: only a cursor the service gave out (unpadded base64url), with the filters of the page that gave it, is accepted. */
                cursor?: components["parameters"]["Cursor"];
                /** @description The most keys in the page: 1 to 1000; 100 when left out. */
                limit?: components["parameters"]["KeyLimit"];
            };
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of keys. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KeyPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    createKey: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["KeyBody"];
            };
        };
        responses: {
            /** @description The key, with its secret. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NewAPIKey"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    revokeKey: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
                /** @description Checked as on every mutating request (1 to 128 printable ASCII characters, given once), but nothing is stored under it: the operation is idempotent by itself. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKeyChecked"];
            };
            path: {
                /** @description The key's id. */
                id: components["parameters"]["KeyId"];
            };
            cookie?: never;
        };
        /** @description None, or {}. */
        requestBody?: {
            content: {
                "application/json": components["schemas"]["EmptyBody"];
            };
        };
        responses: {
            /** @description The key, with revoked_at. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["APIKey"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    healthz: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Alive. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    readyz: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Ready"];
                };
            };
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    metrics: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The metrics. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    openapi: {
        parameters: {
            query?: never;
            header?: {
                /** @description The ETag of a copy the client holds. */
                "If-None-Match"?: string;
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The document. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        openapi: string;
                        info: Record<string, never>;
                        paths: Record<string, never>;
                        components?: Record<string, never>;
                        security?: Record<string, never>[];
                        tags?: Record<string, never>[];
                    };
                };
            };
            /** @description The client's copy is current. */
            304: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    listEvents: {
        parameters: {
            query?: {
                /** @description The cursor of the last event read (an event's cursor or a page's next_cursor, opaque: unpadded base64url that the service gave out); left out, from the oldest event kept. `latest`: after every event committed so far, the head of the feed: the page has no event then, unless one commits while it waits, and its next_cursor is the head's, to long-poll from with wait. */
                after?: string;
                /** @description Keep the events of these types, comma-separated. */
                type?: string;
                /** @description Keep the events of one kind of aggregate. */
                aggregate?: "level" | "reservation" | "order" | "event" | "hold" | "booking" | "payment" | "room";
                /** @description With aggregate: keep the events of one aggregate. */
                aggregate_id?: components["schemas"]["Id"];
                /** @description The most events in the page: 1 to 1000, 100 if left out. */
                limit?: number;
                /** @description How long to wait for an event if none is there yet, as a duration such as 10s or 500ms; at most 60s. Left out, answer at once. */
                wait?: string;
            };
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The events after the cursor. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    streamEvents: {
        parameters: {
            query?: {
                /** @description The cursor of the last event read (an event's cursor or a page's next_cursor, opaque: unpadded base64url that the service gave out); left out, from the oldest event kept. `latest`: after every event committed so far, so that the stream sends only the events that commit from then on. Not with Last-Event-ID. */
                after?: string;
                /** @description Keep the events of these types, comma-separated. */
                type?: string;
                /** @description Keep the events of one kind of aggregate. */
                aggregate?: "level" | "reservation" | "order" | "event" | "hold" | "booking" | "payment" | "room";
                /** @description With aggregate: keep the events of one aggregate. */
                aggregate_id?: components["schemas"]["Id"];
                /** @description The most events in the page: 1 to 1000, 100 if left out. */
                limit?: number;
            };
            header?: {
                /** @description The id of the last event received: resume after it. An event's cursor, not `latest`; not with after. */
                "Last-Event-ID"?: string;
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The stream. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    listLocks: {
        parameters: {
            query?: {
                /** @description Keep the keys that start with it, such as stockade:sku: for the stock's locks. */
                prefix?: string;
                /** @description The next_cursor of the page before; leave it out for the first page. Opaque: only a cursor the service gave out (unpadded base64url), with the filters of the page that gave it, is accepted. */
                cursor?: components["parameters"]["Cursor"];
                /** @description The most keys in the page: 1 to 1000; 100 when left out. */
                limit?: components["parameters"]["LockLimit"];
            };
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the locks. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LockPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            /** @description invalid_state: the server has no lock inspector: its strategy takes no locks, or its locker cannot be inspected. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem409"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    listWebhookEndpoints: {
        parameters: {
            query?: {
                /** @description The next_cursor of the page before; leave it out for the first page. Opaque: only a cursor the service gave out (unpadded base64url), with the filters of the page that gave it, is accepted. */
                cursor?: components["parameters"]["Cursor"];
                /** @description The most items in the page: 1 to 1000; 100 when left out. */
                limit?: components["parameters"]["WebhookLimit"];
            };
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of endpoints. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpointPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    createWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WebhookEndpointBody"];
            };
        };
        responses: {
            /** @description The endpoint, with its secret. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NewWebhookEndpoint"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    getWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                /** @description The webhook endpoint's id. */
                id: components["parameters"]["WebhookEndpointId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpoint"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    deleteWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
                /** @description Checked as on every mutating request (1 to 128 printable ASCII characters, given once), but nothing is stored under it: the operation is idempotent by itself. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKeyChecked"];
            };
            path: {
                /** @description The webhook endpoint's id. */
                id: components["parameters"]["WebhookEndpointId"];
            };
            cookie?: never;
        };
        /** @description None, or {}. */
        requestBody?: {
            content: {
                "application/json": components["schemas"]["EmptyBody"];
            };
        };
        responses: {
            /** @description The endpoint as it was. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpoint"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    updateWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
                /** @description Checked as on every mutating request (1 to 128 printable ASCII characters, given once), but nothing is stored under it: the operation is idempotent by itself. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKeyChecked"];
            };
            path: {
                /** @description The webhook endpoint's id. */
                id: components["parameters"]["WebhookEndpointId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WebhookEndpointUpdate"];
            };
        };
        responses: {
            /** @description The endpoint, changed. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpoint"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    rotateWebhookSecret: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                /** @description The webhook endpoint's id. */
                id: components["parameters"]["WebhookEndpointId"];
            };
            cookie?: never;
        };
        /** @description None, {}, or overlap_seconds. */
        requestBody?: {
            content: {
                "application/json": components["schemas"]["RotateSecretBody"];
            };
        };
        responses: {
            /** @description The endpoint, with its new secret. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NewWebhookEndpoint"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: {
                /** @description Only the deliveries in this status. */
                status?: components["parameters"]["WebhookDeliveryStatusFilter"];
                /** @description The next_cursor of the page before; leave it out for the first page. Opaque: only a cursor the service gave out (unpadded base64url), with the filters of the page that gave it, is accepted. */
                cursor?: components["parameters"]["Cursor"];
                /** @description The most items in the page: 1 to 1000; 100 when left out. */
                limit?: components["parameters"]["WebhookLimit"];
            };
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                /** @description The webhook endpoint's id. */
                id: components["parameters"]["WebhookEndpointId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of deliveries. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeliveryPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    redeliverWebhook: {
        parameters: {
            query?: never;
            header?: {
                /** @description The client's id for the request, kept if it is 1 to 128 printable ASCII characters (else the server makes one up) and sent back in the X-Request-Id of the answer. */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
                /** @description Checked as on every mutating request (1 to 128 printable ASCII characters, given once), but nothing is stored under it: the operation is idempotent by itself. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKeyChecked"];
            };
            path: {
                /** @description The webhook endpoint's id. */
                id: components["parameters"]["WebhookEndpointId"];
                /** @description The delivery's id. */
                delivery: components["parameters"]["WebhookDeliveryId"];
            };
            cookie?: never;
        };
        /** @description None, or {}. */
        requestBody?: {
            content: {
                "application/json": components["schemas"]["EmptyBody"];
            };
        };
        responses: {
            /** @description The delivery, pending. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDelivery"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
}

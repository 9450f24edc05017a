package httpapi

import (
	"encoding/json"

	"github.com/stockade/stockade"
)

// Waiting rooms: the admission that holds and reservations carry through
// a room.

// The request bodies.

// admissionBody is the admission of a hold's, a reservation's or a
// checkout's body: the visitor, and the token its ticket carries.
type admissionBody struct {
	VisitorID *string `json:"visitor_id"`
	Token     *string `json:"token"`
}

// admissionOf decodes the admission of a body, nil when it is left out
// or null. The service checks its values (AdmissionProof.Validate) and
// its token.
func admissionOf(raw json.RawMessage) (*stockade.AdmissionProof, error) {
	if len(raw) == 0 || isNull(raw) {
		return nil, nil
	}
	var b admissionBody
	if err := decode(raw, &b, "admission"); err != nil {
		return nil, err
	}
	switch {
	case b.VisitorID == nil:
		return nil, required("admission.visitor_id")
	case b.Token == nil:
		return nil, required("admission.token")
	}
	return &stockade.AdmissionProof{VisitorID: *b.VisitorID, Token: *b.Token}, nil
}

// The Client's calls.

// admissionJSON is the admission of a hold's or reservation's body as the
// client sends it.
type admissionJSON struct {
	VisitorID string `json:"visitor_id"`
	Token     string `json:"token"`
}

func admissionBodyOf(p *stockade.AdmissionProof) *admissionJSON {
	if p == nil {
		return nil
	}
	return &admissionJSON{VisitorID: p.VisitorID, Token: p.Token}
}

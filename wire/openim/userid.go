package openim

import "unicode"

// LegalUserID is the rule /user/user_register applies to each user id
// (openimsdk/protocol util/datautil IsLegalUserID, called by
// UserRegisterReq.Check): letters, digits and '_' only, any length. A
// refused id is answered 1001 ArgsError with errDlt "userID is legal".
func LegalUserID(id string) bool {
	for _, r := range id {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' {
			return false
		}
	}
	return true
}

// IllegalUserIDDetail is the errDlt of that refusal, as the real server
// words it.
const IllegalUserIDDetail = "userID is legal"

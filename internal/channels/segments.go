package channels

// gsm7Basic is the GSM 03.38 default alphabet; gsm7Ext the characters of
// its extension table, which take two septets (an escape and the char).
const gsm7Basic = "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà"
const gsm7Ext = "^{}\\[~]|€\f"

var gsmBasic, gsmExt = runeSet(gsm7Basic), runeSet(gsm7Ext)

func runeSet(s string) map[rune]bool {
	m := map[rune]bool{}
	for _, r := range s {
		m[r] = true
	}
	return m
}

// Encoding reports how an SMS body travels: "GSM-7" when every character is
// in the GSM alphabet (or its extension), "UCS-2" otherwise.
func Encoding(body string) string {
	for _, r := range body {
		if !gsmBasic[r] && !gsmExt[r] {
			return "UCS-2"
		}
	}
	return "GSM-7"
}

// Segments counts the SMS parts a body needs: GSM-7 160 characters in one
// part, 153 per part when concatenated (extension characters count two);
// UCS-2 70 and 67 (UTF-16 code units, so an emoji counts two). An empty
// body is one segment.
func Segments(body string) int {
	var units, single, multi int
	if Encoding(body) == "GSM-7" {
		single, multi = 160, 153
		for _, r := range body {
			units++
			if gsmExt[r] {
				units++
			}
		}
	} else {
		single, multi = 70, 67
		for _, r := range body {
			units++
			if r > 0xFFFF {
				units++
			}
		}
	}
	if units <= single {
		return 1
	}
	return (units + multi - 1) / multi
}

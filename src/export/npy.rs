//! The `.npy` files of a bundle: float32 `[rows, dim]`, written as NumPy writes them and read
//! back as strictly as `numpy.load` reads them. The header is a Python dictionary literal; it is
//! parsed, not searched, so a header numpy would refuse (a second `descr`, an extra key holding
//! the expected text, a Fortran-ordered array) is refused here too. Every row read must be a
//! usable vector: no NaN, no infinity, not all zeros.

/// Bytes of a header (magic, version, length and the dictionary) at most: version 1 holds a
/// 16-bit length, and a longer header is a hostile one.
pub const MAX_HEADER: u64 = 10 + 65_535;

/// `rows` vectors of `dim` floats as a NumPy `.npy` file (version 1.0, little-endian float32,
/// C order), the format `numpy.load` reads.
pub fn npy_bytes(rows: &[&[f32]], dim: usize) -> Vec<u8> {
    let header = format!(
        "{{'descr': '<f4', 'fortran_order': False, 'shape': ({}, {dim}), }}",
        rows.len()
    );
    // Magic (6) + version (2) + header length (2) + header + padding + newline, to a multiple of 64.
    let unpadded = 10 + header.len() + 1;
    let padding = (64 - unpadded % 64) % 64;
    let header_len = header.len() + padding + 1;
    let mut out = Vec::with_capacity(10 + header_len + rows.len() * dim * 4);
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    out.extend_from_slice(&(header_len as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend(std::iter::repeat_n(b' ', padding));
    out.push(b'\n');
    for row in rows {
        for v in row.iter().take(dim) {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    out
}

/// The largest `.npy` file of `rows` vectors of `dim` floats, header included (`None` when the
/// product overflows: no such file can be read).
pub fn npy_limit(rows: usize, dim: usize) -> Option<u64> {
    (rows as u64)
        .checked_mul(dim as u64)?
        .checked_mul(4)?
        .checked_add(MAX_HEADER + 2)
}

/// A value of the header dictionary.
#[derive(Debug, PartialEq)]
enum Literal {
    Text(String),
    Bool(bool),
    Tuple(Vec<u64>),
}

/// The header's three fields, each given exactly once.
#[derive(Debug, PartialEq)]
struct Header {
    descr: String,
    fortran_order: bool,
    shape: Vec<u64>,
}

/// A reader of the Python literal subset `numpy.lib.format` writes: a dict of quoted keys whose
/// values are strings, `True`/`False` and tuples of integers.
struct Literals<'a> {
    text: &'a [u8],
    at: usize,
}

impl Literals<'_> {
    fn skip_space(&mut self) {
        while self
            .text
            .get(self.at)
            .is_some_and(|b| b" \t\r\n".contains(b))
        {
            self.at += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> bool {
        self.skip_space();
        let found = self.text.get(self.at) == Some(&byte);
        if found {
            self.at += 1;
        }
        found
    }

    fn expect(&mut self, byte: u8) -> Result<(), String> {
        if self.eat(byte) {
            Ok(())
        } else {
            Err(format!("expected `{}` at byte {}", byte as char, self.at))
        }
    }

    fn string(&mut self) -> Result<String, String> {
        self.skip_space();
        let quote = match self.text.get(self.at) {
            Some(q @ (b'\'' | b'"')) => *q,
            _ => return Err(format!("expected a quoted string at byte {}", self.at)),
        };
        let start = self.at + 1;
        let len = self.text[start..]
            .iter()
            .position(|&b| b == quote || b == b'\\')
            .ok_or("a string is not closed")?;
        if self.text[start + len] == b'\\' {
            return Err("a string holds an escape".into());
        }
        self.at = start + len + 1;
        String::from_utf8(self.text[start..start + len].to_vec())
            .map_err(|_| "a string is not UTF-8".to_string())
    }

    fn integer(&mut self) -> Result<u64, String> {
        self.skip_space();
        let start = self.at;
        while self.text.get(self.at).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
        }
        std::str::from_utf8(&self.text[start..self.at])
            .ok()
            .and_then(|d| d.parse().ok())
            .ok_or_else(|| format!("expected a whole number at byte {start}"))
    }

    fn value(&mut self) -> Result<Literal, String> {
        self.skip_space();
        let rest = &self.text[self.at..];
        for (word, value) in [("True", true), ("False", false)] {
            if rest.starts_with(word.as_bytes()) {
                self.at += word.len();
                return Ok(Literal::Bool(value));
            }
        }
        match rest.first() {
            Some(b'\'' | b'"') => self.string().map(Literal::Text),
            Some(b'(') => {
                self.at += 1;
                let mut items = Vec::new();
                while !self.eat(b')') {
                    items.push(self.integer()?);
                    if !self.eat(b',') {
                        self.expect(b')')?;
                        break;
                    }
                }
                Ok(Literal::Tuple(items))
            }
            _ => Err(format!("a value numpy does not write at byte {}", self.at)),
        }
    }

    /// The header dictionary: exactly `descr`, `fortran_order` and `shape`, once each, and
    /// nothing after it but padding.
    fn header(mut self) -> Result<Header, String> {
        self.expect(b'{')?;
        let (mut descr, mut fortran_order, mut shape) = (None, None, None);
        while !self.eat(b'}') {
            let key = self.string()?;
            self.expect(b':')?;
            let value = self.value()?;
            let slot_taken = match (key.as_str(), value) {
                ("descr", Literal::Text(t)) => descr.replace(t).is_some(),
                ("fortran_order", Literal::Bool(b)) => fortran_order.replace(b).is_some(),
                ("shape", Literal::Tuple(s)) => shape.replace(s).is_some(),
                ("descr" | "fortran_order" | "shape", v) => {
                    return Err(format!("{key} cannot be {v:?}"));
                }
                _ => return Err(format!("unexpected key {key:?}")),
            };
            if slot_taken {
                return Err(format!("{key} is given twice"));
            }
            if !self.eat(b',') {
                self.expect(b'}')?;
                break;
            }
        }
        self.skip_space();
        if self.at != self.text.len() {
            return Err(format!("text after the dictionary at byte {}", self.at));
        }
        Ok(Header {
            descr: descr.ok_or("no descr")?,
            fortran_order: fortran_order.ok_or("no fortran_order")?,
            shape: shape.ok_or("no shape")?,
        })
    }
}

/// The rows of a float32 `.npy` file of shape exactly `(rows, dim)` (version 1 or 2,
/// little-endian, C order), each a usable vector, or why it is not one.
pub fn read_npy(bytes: &[u8], rows: usize, dim: usize) -> Result<Vec<Vec<f32>>, String> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err("not a .npy file".into());
    }
    let (header_len, start) = match bytes[6] {
        1 => (
            usize::from(u16::from_le_bytes([bytes[8], bytes[9]])),
            10usize,
        ),
        2 | 3 if bytes.len() >= 12 => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
        v => return Err(format!(".npy version {v} is not read")),
    };
    let raw = bytes
        .get(start..start.saturating_add(header_len))
        .ok_or("the .npy header is cut short")?;
    let shown = String::from_utf8_lossy(raw);
    let says = || format!("the header says {}", shown.trim());
    let header = Literals { text: raw, at: 0 }
        .header()
        .map_err(|why| format!("the .npy header is not one numpy reads ({why}); {}", says()))?;
    if header.descr != "<f4" || header.fortran_order {
        return Err(format!(
            "expected little-endian float32 in C order, {}",
            says()
        ));
    }
    let [shape_rows, cols] = header.shape[..] else {
        return Err(format!("expected two dimensions, {}", says()));
    };
    if cols == 0 {
        return Err(format!(
            "shape ({shape_rows}, {cols}) has no columns: a vector has at least one"
        ));
    }
    if cols != dim as u64 {
        return Err(format!("{cols} columns, settings.json says dim {dim}"));
    }
    if shape_rows != rows as u64 {
        return Err(format!("{shape_rows} rows, settings.json says {rows}"));
    }
    let data = &bytes[start + header_len..];
    if Some(data.len()) != rows.checked_mul(dim).and_then(|n| n.checked_mul(4)) {
        return Err(format!(
            "{} bytes of data for shape ({rows}, {dim})",
            data.len()
        ));
    }
    data.chunks_exact(dim * 4)
        .enumerate()
        .map(|(row, bytes)| {
            let vector: Vec<f32> = bytes
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            usable(&vector).map_err(|why| format!("row {row} {why}: not a usable vector"))?;
            Ok(vector)
        })
        .collect()
}

/// Why a vector cannot be searched with: a NaN or an infinity in it, or no direction at all.
fn usable(vector: &[f32]) -> Result<(), String> {
    if let Some(at) = vector.iter().position(|v| v.is_nan()) {
        return Err(format!("holds NaN (column {at})"));
    }
    if let Some(at) = vector.iter().position(|v| v.is_infinite()) {
        return Err(format!("holds an infinity (column {at})"));
    }
    if vector.iter().all(|&v| v == 0.0) {
        return Err("is all zeros".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_header(header: &str, rows: usize, dim: usize) -> Vec<u8> {
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        let text = format!("{header}\n");
        out.extend_from_slice(&(text.len() as u16).to_le_bytes());
        out.extend_from_slice(text.as_bytes());
        out.extend(std::iter::repeat_n(1.0f32.to_le_bytes(), rows * dim).flatten());
        out
    }

    fn refused(bytes: &[u8], rows: usize, dim: usize) -> String {
        match read_npy(bytes, rows, dim) {
            Ok(v) => panic!("read {} rows from a file numpy refuses", v.len()),
            Err(e) => e,
        }
    }

    #[test]
    fn npy_has_numpys_header_and_little_endian_rows() {
        let a = [1.0f32, 2.0];
        let b = [3.0f32, -0.5];
        let bytes = npy_bytes(&[&a, &b], 2);
        assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00");
        let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
        assert_eq!((10 + header_len) % 64, 0, "the data starts 64-aligned");
        let header = std::str::from_utf8(&bytes[10..10 + header_len]).unwrap_or_default();
        assert!(
            header.contains("'shape': (2, 2)") && header.ends_with('\n'),
            "{header}"
        );
        let data = &bytes[10 + header_len..];
        assert_eq!(data.len(), 16);
        assert_eq!(&data[12..16], &(-0.5f32).to_le_bytes());
    }

    #[test]
    fn npy_round_trips_and_bad_headers_are_named() {
        let a = [1.0f32, -2.5, 3.25];
        let b = [0.0f32, 0.5, -0.125];
        let bytes = npy_bytes(&[&a, &b], 3);
        assert_eq!(read_npy(&bytes, 2, 3), Ok(vec![a.to_vec(), b.to_vec()]));
        assert!(refused(&bytes, 2, 4).contains("3 columns"));
        assert!(refused(&bytes, 3, 3).contains("2 rows, settings.json says 3"));
        assert!(refused(&bytes[..bytes.len() - 4], 2, 3).contains("bytes of data"));
        assert!(refused(b"PK\x03\x04 not numpy", 2, 3).contains("not a .npy"));
        let mut f8 = bytes.clone();
        let at = f8.windows(3).position(|w| w == b"<f4").unwrap_or(0);
        f8[at + 2] = b'8';
        assert!(refused(&f8, 2, 3).contains("float32"));
        // Shape (83, 0) under dim 0: no columns, refused (once a panic in chunks_exact(0)).
        let no_columns = with_header(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (83,0)}",
            0,
            0,
        );
        assert!(refused(&no_columns, 83, 0).contains("no columns"));
    }

    #[test]
    fn a_spoofed_header_numpy_refuses_is_refused() {
        let good = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), }";
        assert!(read_npy(&with_header(good, 1, 2), 1, 2).is_ok());
        // Each of these held the text the old substring check looked for.
        for (header, why) in [
            (
                "{'descr': '<f4', 'descr': '<f8', 'fortran_order': False, 'shape': (1, 2)}",
                "descr is given twice",
            ),
            (
                "{'descr': '<f4', 'fortran_order': True, 'shape': (1, 2), 'x': \"'fortran_order':False\"}",
                "unexpected key",
            ),
            (
                "{'descr': '<f4', 'fortran_order': True, 'shape': (1, 2)}",
                "C order",
            ),
            (
                "{'descr': \"<f4'\", 'fortran_order': False, 'shape': (1, 2)}",
                "float32",
            ),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2)} 'descr':'<f4'",
                "text after the dictionary",
            ),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2, 1)}",
                "two dimensions",
            ),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), 'shape': (1, 2)}",
                "shape is given twice",
            ),
            ("{'descr': '<f4', 'fortran_order': False}", "no shape"),
            (
                "{'descr': '<f4', 'fortran_order': 0, 'shape': (1, 2)}",
                "a value numpy does not write",
            ),
        ] {
            let e = refused(&with_header(header, 1, 2), 1, 2);
            assert!(e.contains(why), "{header}: {e}");
            assert!(e.contains("the header says"), "{header}: {e}");
        }
    }

    #[test]
    fn nan_infinite_and_zero_rows_are_refused_by_row() {
        let good = [0.5f32, 0.5];
        for (bad, why) in [
            ([0.5f32, f32::NAN], "row 1 holds NaN (column 1)"),
            ([f32::INFINITY, 0.5], "row 1 holds an infinity (column 0)"),
            ([f32::NEG_INFINITY, 0.5], "row 1 holds an infinity"),
            ([0.0f32, -0.0], "row 1 is all zeros"),
        ] {
            let e = refused(&npy_bytes(&[&good, &bad], 2), 2, 2);
            assert!(e.contains(why), "{e}");
        }
    }

    #[test]
    fn the_size_limit_covers_the_header_and_overflow_is_no_limit() {
        let row = [1.0f32; 384];
        let bytes = npy_bytes(&[&row, &row, &row], 384);
        assert!(npy_limit(3, 384).is_some_and(|l| bytes.len() as u64 <= l));
        assert_eq!(npy_limit(usize::MAX, 384), None);
    }
}

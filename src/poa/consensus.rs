//! CONSENT / BMEAN column-majority consensus over MSA rows.

/// Per column: count A, C, G, T and everything else (gaps and other bytes).
/// Drop the column if "other" strictly beats every base; else emit the base
/// that strictly beats the other three; else fall back to row 0's byte unless
/// it is `-`. Empty rows are skipped when counting; rows must otherwise be at
/// least as long as row 0.
pub fn column_majority(rows: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    let Some(first) = rows.first() else {
        return out;
    };
    for col in 0..first.len() {
        let (mut a, mut c, mut g, mut t, mut other) = (0u32, 0u32, 0u32, 0u32, 0u32);
        for r in rows.iter().filter(|r| !r.is_empty()) {
            match r[col] {
                b'A' => a += 1,
                b'C' => c += 1,
                b'G' => g += 1,
                b'T' => t += 1,
                _ => other += 1,
            }
        }
        if other > a && other > c && other > t && other > g {
            continue;
        }
        if a > c && a > g && a > t {
            out.push(b'A');
        } else if c > a && c > g && c > t {
            out.push(b'C');
        } else if g > a && g > c && g > t {
            out.push(b'G');
        } else if t > a && t > g && t > c {
            out.push(b'T');
        } else if first[col] != b'-' {
            out.push(first[col]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::column_majority;

    fn rows(v: &[&str]) -> Vec<Vec<u8>> {
        v.iter().map(|s| s.as_bytes().to_vec()).collect()
    }

    #[test]
    fn majority_rules() {
        // Columns: A wins; gaps win (dropped); A/C tie -> row 0's C; A wins
        // over a gap; T wins; G wins; four-way tie with row 0 gapped (nothing);
        // four-way tie -> row 0's N.
        let r = rows(&["AAC-NG-N", "A-CAAGAA", "A-AAT-CT", "C-ACTCGC"]);
        assert_eq!(column_majority(&r), b"ACATGN".to_vec());
    }

    #[test]
    fn empty_rows_are_skipped() {
        let r = rows(&["ACG", "", "ACG", "TCG"]);
        assert_eq!(column_majority(&r), b"ACG".to_vec());
        assert!(column_majority(&[]).is_empty());
    }
}

//! The eight 32-bit string hashes of CUDA-EC v1 (spec §4.5).
//!
//! v1 feeds every byte as a C `char`, which is signed on x86-64, so a byte
//! enters the arithmetic sign-extended. All arithmetic wraps modulo 2^32.

/// Number of hash functions used by both the counting filter and the GPU
/// Bloom table.
pub const NUM_HASH: usize = 8;

#[inline(always)]
fn signed(byte: u8) -> u32 {
    byte as i8 as i32 as u32
}

pub fn rs(key: &[u8]) -> u32 {
    let (mut h, mut a) = (0u32, 63689u32);
    for &c in key {
        h = h.wrapping_mul(a).wrapping_add(signed(c));
        a = a.wrapping_mul(378551);
    }
    h
}

/// RS is linear in the bytes: `rs(key) = sum(key[i] * weight[i])` with
/// `weight[i]` the product of the multipliers of the later steps. So a
/// substitution at `i` changes the hash by `(new - old) * weight[i]`.
pub fn rs_weights(len: usize) -> Vec<u32> {
    let multipliers: Vec<u32> = (0..len as u32)
        .scan(63689u32, |a, _| {
            let cur = *a;
            *a = a.wrapping_mul(378551);
            Some(cur)
        })
        .collect();
    let mut weights = vec![1u32; len];
    for i in (0..len.saturating_sub(1)).rev() {
        weights[i] = weights[i + 1].wrapping_mul(multipliers[i + 1]);
    }
    weights
}

/// The RS hash after replacing byte `old` by `new` at a position of `weight`.
#[inline]
pub fn rs_substitute(rs_hash: u32, weight: u32, old: u8, new: u8) -> u32 {
    rs_hash.wrapping_add(signed(new).wrapping_sub(signed(old)).wrapping_mul(weight))
}

pub fn js(key: &[u8]) -> u32 {
    let mut h = 1315423911u32;
    for &c in key {
        h ^= (h << 5).wrapping_add(signed(c)).wrapping_add(h >> 2);
    }
    h
}

/// PJW and ELF compute the same function (spec §4.5); v1 still probes both,
/// so the filter sets/tests the same bit twice.
pub fn pjw(key: &[u8]) -> u32 {
    let mut h = 0u32;
    for &c in key {
        h = (h << 4).wrapping_add(signed(c));
        let high = h & 0xF000_0000;
        if high != 0 {
            h = (h ^ (high >> 24)) & 0x0FFF_FFFF;
        }
    }
    h
}

pub fn elf(key: &[u8]) -> u32 {
    let mut h = 0u32;
    for &c in key {
        h = (h << 4).wrapping_add(signed(c));
        let x = h & 0xF000_0000;
        if x != 0 {
            h ^= x >> 24;
        }
        h &= !x;
    }
    h
}

pub fn bkdr(key: &[u8]) -> u32 {
    let mut h = 0u32;
    for &c in key {
        h = h.wrapping_mul(131).wrapping_add(signed(c));
    }
    h
}

pub fn sdbm(key: &[u8]) -> u32 {
    let mut h = 0u32;
    for &c in key {
        h = signed(c)
            .wrapping_add(h << 6)
            .wrapping_add(h << 16)
            .wrapping_sub(h);
    }
    h
}

pub fn djb(key: &[u8]) -> u32 {
    let mut h = 5381u32;
    for &c in key {
        h = h.wrapping_mul(33).wrapping_add(signed(c));
    }
    h
}

/// DEK starts from the key length, which v1 always passes as the tuple size.
pub fn dek(key: &[u8]) -> u32 {
    let mut h = key.len() as u32;
    for &c in key {
        h = ((h << 5) ^ (h >> 27)) ^ signed(c);
    }
    h
}

/// The hashes in v1's probe order: RS, JS, PJW, ELF, BKDR, SDBM, DJB, DEK.
pub const ALL: [fn(&[u8]) -> u32; NUM_HASH] = [rs, js, pjw, elf, bkdr, sdbm, djb, dek];

/// All eight hashes of `key`, in probe order.
pub fn all(key: &[u8]) -> [u32; NUM_HASH] {
    ALL.map(|h| h(key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pjw_equals_elf() {
        let mut x = 12345u32;
        for _ in 0..2000 {
            let key: Vec<u8> = (0..20)
                .map(|_| {
                    x = x.wrapping_mul(1103515245).wrapping_add(12345);
                    b"ACGT"[(x >> 16) as usize & 3]
                })
                .collect();
            assert_eq!(pjw(&key), elf(&key));
        }
    }

    #[test]
    fn rs_substitution_is_incremental() {
        let key = b"ACGTTGCAACGTAGCTAGCA".to_vec();
        let w = rs_weights(key.len());
        for i in 0..key.len() {
            let mut m = key.clone();
            m[i] = b'G';
            assert_eq!(rs_substitute(rs(&key), w[i], key[i], b'G'), rs(&m));
        }
    }

    #[test]
    fn bytes_are_sign_extended() {
        // 0xFF enters as -1: BKDR of one byte is then 0xFFFF_FFFF.
        assert_eq!(bkdr(&[0xFF]), u32::MAX);
        assert_eq!(djb(b"A"), 5381 * 33 + 65);
    }
}

//! CPU reference of the selftest kernel.

/// Twin of `seqshim_mix32` in kernels/common.cuh.
pub fn mix32(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^= x >> 16;
    x
}

pub fn mix_all(values: &[u32], rounds: u32) -> Vec<u32> {
    values
        .iter()
        .map(|&v| (0..rounds).fold(v, |x, r| mix32(x.wrapping_add(r))))
        .collect()
}

/// Deterministic input values for block `block`.
pub fn input_block(block: u32, len: usize) -> Vec<u32> {
    (0..len as u32)
        .map(|i| mix32(block.wrapping_mul(0x9e37_79b9) ^ i))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mix32_avalanches() {
        // Flipping one input bit flips about half of the output bits.
        let flips: u32 = (0..32)
            .map(|b| (mix32(12345) ^ mix32(12345 ^ (1 << b))).count_ones())
            .sum();
        let mean = flips as f64 / 32.0;
        assert!((12.0..20.0).contains(&mean), "mean flipped bits {mean}");
        assert_eq!(mix32(0), 0);
    }
}

//! Kernel argument blocks: `#[repr(C)]` structs that a kernel declares with
//! the same layout, written into and read from staging bytes without
//! `unsafe`. [`device_struct!`] defines one: the struct, `const` asserts of
//! its size and of every field's offset (the kernel's `static_assert`s pin
//! the same numbers on the CUDA side), and a [`DeviceRepr`] impl that moves
//! each field through its little-endian bytes, as the GPU reads them.

/// A field type of a device struct: a number stored little-endian.
pub trait DeviceScalar: Copy {
    /// Its bytes.
    const SIZE: usize;
    /// Writes it into `out` (exactly `SIZE` bytes).
    fn put(self, out: &mut [u8]);
    /// Reads it from `bytes` (exactly `SIZE` bytes).
    fn get(bytes: &[u8]) -> Self;
}

macro_rules! scalar {
    ($($ty:ty),*) => {$(
        impl DeviceScalar for $ty {
            const SIZE: usize = size_of::<$ty>();
            #[inline]
            fn put(self, out: &mut [u8]) {
                out.copy_from_slice(&self.to_le_bytes());
            }
            #[inline]
            fn get(bytes: &[u8]) -> Self {
                let mut le = [0u8; size_of::<$ty>()];
                le.copy_from_slice(bytes);
                <$ty>::from_le_bytes(le)
            }
        }
    )*};
}
scalar!(u8, i8, u16, i16, u32, i32, u64, i64, f32, f64);

/// A struct with the layout of a CUDA C struct, defined with
/// [`device_struct!`]: fixed offsets, no padding, every byte a field's.
pub trait DeviceRepr: Copy {
    /// Its bytes: `size_of::<Self>()`, asserted where it is defined.
    const SIZE: usize;
    /// Writes every field at its offset into `out[..SIZE]` (panics when
    /// `out` is shorter).
    fn write_to(&self, out: &mut [u8]);
    /// Reads every field from its offset in `bytes[..SIZE]` (panics when
    /// `bytes` is shorter).
    fn read_from(bytes: &[u8]) -> Self;
}

/// Writes `items` one after the other at the start of `out`.
pub fn write_structs<T: DeviceRepr>(out: &mut [u8], items: &[T]) {
    let out = &mut out[..T::SIZE * items.len()];
    for (chunk, item) in out.chunks_exact_mut(T::SIZE).zip(items) {
        item.write_to(chunk);
    }
}

/// The struct at the start of `bytes`.
pub fn read_struct<T: DeviceRepr>(bytes: &[u8]) -> T {
    T::read_from(bytes)
}

/// Defines a `#[repr(C)]` struct shared with a kernel, naming its size and
/// every field's byte offset, which are asserted at compile time (as must
/// be that the fields cover every byte: no padding), and implements
/// [`DeviceRepr`] for it.
///
/// ```ignore
/// device_struct! {
///     /// Host twin of `struct Pair` in kernels/x.cu.
///     pub struct Pair (16 bytes) {
///         pub at: u64 = 0,
///         pub len: i32 = 8,
///         pub cap: i32 = 12,
///     }
/// }
/// ```
macro_rules! device_struct {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident ($size:literal bytes) {
            $( $(#[$field_meta:meta])* $field_vis:vis $field:ident : $ty:ty = $offset:literal ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[repr(C)]
        #[derive(Clone, Copy, Debug, Default, PartialEq)]
        $vis struct $name {
            $( $(#[$field_meta])* $field_vis $field: $ty, )*
        }

        const _: () = {
            assert!(::core::mem::size_of::<$name>() == $size);
            $( assert!(::core::mem::offset_of!($name, $field) == $offset); )*
            // No padding: the fields cover every byte.
            assert!(0 $( + ::core::mem::size_of::<$ty>() )* == $size);
        };

        impl $crate::engine::device::DeviceRepr for $name {
            const SIZE: usize = $size;

            #[inline]
            fn write_to(&self, out: &mut [u8]) {
                let out = &mut out[..$size];
                $(
                    $crate::engine::device::DeviceScalar::put(
                        self.$field,
                        &mut out[$offset..$offset + ::core::mem::size_of::<$ty>()],
                    );
                )*
            }

            #[inline]
            fn read_from(bytes: &[u8]) -> Self {
                let bytes = &bytes[..$size];
                $name {
                    $(
                        $field: <$ty as $crate::engine::device::DeviceScalar>::get(
                            &bytes[$offset..$offset + ::core::mem::size_of::<$ty>()],
                        ),
                    )*
                }
            }
        }
    };
}
pub(crate) use device_struct;

#[cfg(test)]
mod tests {
    use super::*;

    device_struct! {
        struct Sample (24 bytes) {
            a: u64 = 0,
            b: i32 = 8,
            c: f32 = 12,
            d: f64 = 16,
        }
    }

    #[test]
    fn fields_go_to_their_offsets_little_endian() {
        let s = Sample {
            a: 0x0102_0304_0506_0708,
            b: -2,
            c: 1.5,
            d: -0.25,
        };
        let mut bytes = [0xaau8; 2 * 24];
        write_structs(&mut bytes, &[s, Sample::default()]);
        assert_eq!(bytes[..8], 0x0102_0304_0506_0708u64.to_le_bytes());
        assert_eq!(bytes[8..12], (-2i32).to_le_bytes());
        assert_eq!(bytes[12..16], 1.5f32.to_le_bytes());
        assert_eq!(bytes[16..24], (-0.25f64).to_le_bytes());
        assert!(bytes[24..].iter().all(|&b| b == 0));
        assert_eq!(read_struct::<Sample>(&bytes), s);
        assert_eq!(read_struct::<Sample>(&bytes[24..]), Sample::default());
    }
}

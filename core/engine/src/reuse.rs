//! `Clone` that reuses the target's allocations.
//!
//! A search copies one position into the same scratch game over and over
//! (`scratch.clone_from(&root)`). The derived `clone_from` drops the target and clones afresh;
//! the one written here clones field by field, so each `Vec` keeps its buffer and the copy
//! makes no allocation once the scratch game has held a position as large.

/// Implements `Clone` for a struct field by field, `clone_from` included.
///
/// Both methods destructure the struct without `..`, so a field added to it and not listed here
/// is a compile error rather than a field silently left out of the copy.
macro_rules! clone_by_field {
    ($ty:ident { $($field:ident),* $(,)? }) => {
        impl Clone for $ty {
            fn clone(&self) -> Self {
                let $ty { $($field),* } = self;
                $ty { $($field: Clone::clone($field)),* }
            }

            fn clone_from(&mut self, source: &Self) {
                let $ty { $($field),* } = self;
                $( Clone::clone_from($field, &source.$field); )*
            }
        }
    };
}

pub(crate) use clone_by_field;

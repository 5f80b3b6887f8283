//! # meeple-plugin-sdk
//!
//! Write a meeple expansion in Rust, build it as a `cdylib`, and meeple loads it at startup.
//! A plugin implements the same [`meeple_core::Expansion`] trait as built-in expansions; its
//! hooks receive a [`meeple_core::View`] whose answers come from the host game, and emit the
//! same commands.
//!
//! ```ignore
//! use meeple_plugin_sdk::{declare_plugin, Settings};
//! struct Tolls;
//! impl meeple_core::Expansion for Tolls { /* id, hooks, and the hooks it needs */ }
//! declare_plugin!("tollkeepers", "1.0.0", |settings: &Settings| Ok(Box::new(Tolls)));
//! ```
//!
//! The boundary ([`abi`]): one exported symbol per ABI major version (`meeple_plugin_v1`)
//! returning a `#[repr(C)]` table of function pointers; messages ([`proto`]) cross as bytes
//! (MessagePack) written into buffers owned by the receiver through a callback, so no memory is
//! ever freed on the wrong side; every entry point catches panics, which reach the host as
//! errors. Libraries are never unloaded.

// The ABI is a C interface: raw pointers, `extern "C"` functions and an exported symbol.
#![allow(unsafe_code)]

pub mod abi;
pub mod glue;
pub mod proto;
pub mod wire;
pub mod wire_view;

pub use meeple_core;

/// What a plugin is built with, as the host shows it: this SDK and its version.
pub const BUILT_WITH: &str = concat!("meeple-plugin-sdk ", env!("CARGO_PKG_VERSION"));

/// [`BUILT_WITH`] for a plugin built with `panic = "abort"`, which the host refuses.
pub const BUILT_WITH_ABORT: &str = concat!("meeple-plugin-sdk ", env!("CARGO_PKG_VERSION"), "; panic=abort");
pub use proto::Settings;

/// Exports a plugin: its id, version and a factory that makes the expansion from the
/// settings of one game config (edition and options). The id and version must be those of the
/// plugin's manifest (`[expansion] id` and `version`), or the host refuses the library.
///
/// The factory runs once per ruleset that uses the plugin (the host releases the expansion
/// when it drops the ruleset); the expansion keeps no game state
/// between hook calls (everything lives in the host's game state).
#[macro_export]
macro_rules! declare_plugin {
    ($id:expr, $version:expr, $factory:expr) => {
        #[doc(hidden)]
        unsafe extern "C" fn __meeple_create(
            host: *const $crate::abi::HostV1,
            settings: $crate::abi::Bytes,
            sink: *mut ::std::ffi::c_void,
            write: $crate::abi::Sink,
        ) -> u32 {
            unsafe { $crate::glue::create(host, settings, sink, write, $factory) }
        }

        #[doc(hidden)]
        unsafe extern "C" fn __meeple_call(
            host: *const $crate::abi::HostV1,
            instance: u32,
            call: $crate::abi::Bytes,
            sink: *mut ::std::ffi::c_void,
            write: $crate::abi::Sink,
        ) -> u32 {
            unsafe { $crate::glue::call(host, instance, call, sink, write) }
        }

        #[doc(hidden)]
        static __MEEPLE_PLUGIN: $crate::abi::PluginV1 = $crate::abi::PluginV1 {
            struct_size: ::std::mem::size_of::<$crate::abi::PluginV1>() as u32,
            abi_minor: $crate::abi::ABI_MINOR,
            proto: $crate::proto::PROTO,
            id: $crate::abi::Bytes::from_static($id),
            version: $crate::abi::Bytes::from_static($version),
            // The plugin crate's panic strategy, told to the host: under `panic = "abort"` a
            // panic cannot be caught, so the host refuses the plugin rather than die with it.
            built_with: $crate::abi::Bytes::from_static(if cfg!(panic = "abort") {
                $crate::BUILT_WITH_ABORT
            } else {
                $crate::BUILT_WITH
            }),
            create: __meeple_create,
            call: __meeple_call,
        };

        /// The plugin's entry point (ABI major version 1).
        #[allow(unsafe_code)]
        #[unsafe(no_mangle)]
        pub extern "C" fn meeple_plugin_v1() -> *const $crate::abi::PluginV1 {
            &__MEEPLE_PLUGIN
        }
    };
}

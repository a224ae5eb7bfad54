//! Small reusable pieces of the screen: sliders, gauges, chart bars and tall pages.

pub mod bars;
pub mod gauge;
pub mod slider;
pub mod tall;
